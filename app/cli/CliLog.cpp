#include "CliLog.h"

#include "base/VisibleText.h"
#include "log/CommandLog.h"
#include "log/CommandLogExport.h"
#include "run/EphemeralRun.h"

#include <QCommandLineParser>

#include <algorithm>
#include <cstdio>

namespace sbw {
namespace {

/// `text` cut to `width` characters, its end replaced by "…" when it was longer.
QString elided(const QString& text, int width)
{
    return text.size() <= width ? text : text.left(width - 1) + QStringLiteral("…");
}

/// The rows as a table: each column as wide as its widest cell up to its cap (longer cells end
/// in "…"), two spaces apart; the last column (the command) is never cut.
QByteArray table(const QList<ActionRecord>& rows)
{
    struct Column
    {
        const char* header;
        int cap;
        bool right = false;
    };
    const QList<Column> columns{{"ID", 20}, {"STARTED (UTC)", 23}, {"SANDBOX", 24}, {"ACTOR", 28},
                                {"ACTION", 17}, {"STATUS", 24}, {"MS", 12, true}, {"APPROVAL", 40},
                                {"COMMAND", 0}};
    QStringList headers;
    for (const Column& column : columns)
        headers.append(QLatin1String(column.header));
    QList<QStringList> cells{headers};
    for (const ActionRecord& r : rows) {
        const QString command = oneLineVisible(r.command);
        cells.append(QStringList{QString::number(r.id), r.started.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")),
                      oneLineVisible(r.sandbox), oneLineVisible(r.actor.display()), actionKindName(r.kind), r.statusText(),
                      r.durationMs >= 0 ? QString::number(r.durationMs) : QStringLiteral("-"),
                      oneLineVisible(r.approvalText()), command});
    }
    QList<int> widths(columns.size(), 0);
    for (const QStringList& row : cells) {
        for (qsizetype i = 0; i + 1 < columns.size(); ++i)
            widths[i] = std::min(columns[i].cap, std::max(widths[i], int(row[i].size())));
    }
    QString text;
    for (const QStringList& row : cells) {
        QString line;
        for (qsizetype i = 0; i + 1 < columns.size(); ++i) {
            const QString cell = elided(row[i], widths[i]);
            line += columns[i].right ? cell.rightJustified(widths[i]) : cell.leftJustified(widths[i]);
            line += QLatin1String("  ");
        }
        text += line + row.last() + QLatin1Char('\n');
    }
    return text.toUtf8();
}

int usage(const QString& message)
{
    std::fprintf(stderr, "sbw: %s (see sbw log --help)\n", qPrintable(message));
    return 2;
}

/// `rows` with the diffs of their file changes, which CommandLog::rows() leaves out: the JSON
/// export is the whole record.
QList<ActionRecord> withDiffs(const CommandLog& log, QList<ActionRecord> rows)
{
    for (ActionRecord& row : rows) {
        const bool diffed = std::any_of(row.fileChanges.files.cbegin(), row.fileChanges.files.cend(),
                                        [](const FileChange& file) { return file.hasDiff; });
        if (!diffed)
            continue;
        if (auto whole = log.row(row.id))
            row = whole.value();
    }
    return rows;
}

} // namespace

int logCommand(QStringList arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints the command log: every action on every sandbox (exec, run, file transfer, "
        "lifecycle action, approval), newest first. The log is %1.")
                                         .arg(CommandLog::defaultPath()));
    parser.addHelpOption();
    const QCommandLineOption sandbox(QStringLiteral("sandbox"), QStringLiteral("Only rows of this sandbox."),
                                     QStringLiteral("NAME"));
    const QCommandLineOption actor(QStringLiteral("actor"), QStringLiteral("Only rows of person, agent, cli, workbench or guest."),
                                   QStringLiteral("ACTOR"));
    const QCommandLineOption outcome(
        QStringLiteral("status"),
        QStringLiteral("Only rows that ended so: running, succeeded, failed, timed-out, cancelled, denied, "
                       "error, interrupted."),
        QStringLiteral("STATUS"));
    const QCommandLineOption action(QStringLiteral("action"),
                                    QStringLiteral("Only rows of this action: exec, run, network, …"),
                                    QStringLiteral("ACTION"));
    const QCommandLineOption search(QStringLiteral("search"),
                                    QStringLiteral("Only rows whose command, error or sandbox contains TEXT."),
                                    QStringLiteral("TEXT"));
    const QCommandLineOption limit(QStringLiteral("limit"), QStringLiteral("At most N rows (default 50)."),
                                   QStringLiteral("N"), QStringLiteral("50"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("JSON Lines: one object per row, with the files it changed and their diffs."));
    const QCommandLineOption csv(QStringLiteral("csv"), QStringLiteral("CSV with a header line."));
    const QCommandLineOption output(QStringLiteral("output"),
                                    QStringLiteral("Print the kept output of row ID, byte for byte."),
                                    QStringLiteral("ID"));
    const QCommandLineOption stream(QStringLiteral("stream"),
                                    QStringLiteral("With --output: stdout (default) or stderr."),
                                    QStringLiteral("STREAM"), QStringLiteral("stdout"));
    parser.addOptions({sandbox, actor, outcome, action, search, limit, json, csv, output, stream});
    if (!parser.parse(arguments))
        return usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QString help = parser.helpText();
        help.replace(arguments.constFirst(), QStringLiteral("sbw log"));
        std::fputs(qPrintable(help), stdout);
        return 0;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage(QStringLiteral("log takes no arguments"));
    if (parser.isSet(json) && parser.isSet(csv))
        return usage(QStringLiteral("--json and --csv exclude each other"));

    LogFilter filter;
    filter.sandbox = parser.value(sandbox);
    if (parser.isSet(actor)) {
        filter.actor = Actor::kindFromName(parser.value(actor));
        if (!filter.actor)
            return usage(QStringLiteral("--actor is person, agent, cli, workbench or guest, not '%1'").arg(parser.value(actor)));
    }
    if (parser.isSet(outcome)) {
        filter.outcome = outcomeFromName(parser.value(outcome));
        if (!filter.outcome)
            return usage(QStringLiteral("unknown --status '%1'").arg(parser.value(outcome)));
    }
    if (parser.isSet(action)) {
        filter.kind = actionKindFromName(parser.value(action));
        if (!filter.kind)
            return usage(QStringLiteral("unknown --action '%1'").arg(parser.value(action)));
    }
    filter.text = parser.value(search);
    bool limitOk = false;
    const int rowsLimit = parser.value(limit).toInt(&limitOk);
    if (!limitOk || rowsLimit < 1)
        return usage(QStringLiteral("--limit takes a positive number"));
    const QString streamName = parser.value(stream);
    if (streamName != QLatin1String("stdout") && streamName != QLatin1String("stderr"))
        return usage(QStringLiteral("--stream is stdout or stderr"));
    qint64 outputId = 0;
    if (parser.isSet(output)) {
        bool ok = false;
        outputId = parser.value(output).toLongLong(&ok);
        if (!ok || outputId < 1)
            return usage(QStringLiteral("--output takes a row id"));
    }

    auto log = CommandLog::open(CommandLog::defaultPath());
    if (!log) {
        std::fprintf(stderr, "sbw: error: %s\n", qPrintable(log.error().message));
        return RunResult::kWorkbenchError;
    }
    if (outputId) {
        const auto bytes = log.value()->output(
            outputId, streamName == QLatin1String("stdout") ? OutputStream::Stdout : OutputStream::Stderr);
        if (!bytes) {
            std::fprintf(stderr, "sbw: error: %s\n", qPrintable(bytes.error().message));
            return RunResult::kWorkbenchError;
        }
        std::fwrite(bytes.value().constData(), 1, size_t(bytes.value().size()), stdout);
        return 0;
    }
    const auto rows = log.value()->rows(filter, rowsLimit);
    if (!rows) {
        std::fprintf(stderr, "sbw: error: %s\n", qPrintable(rows.error().message));
        return RunResult::kWorkbenchError;
    }
    if (parser.isSet(json) || parser.isSet(csv)) {
        const QByteArray text = parser.isSet(json) ? toJsonLines(withDiffs(*log.value(), rows.value())) : toCsv(rows.value());
        std::fwrite(text.constData(), 1, size_t(text.size()), stdout);
        return 0;
    }
    const QByteArray text = table(rows.value());
    std::fwrite(text.constData(), 1, size_t(text.size()), stdout);
    return 0;
}

} // namespace sbw
