#include "approval/ShellSyntax.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <algorithm>

namespace sbw {
namespace {

constexpr int kParserTimeoutMs = 10'000;

// mvdan/sh 3.6 syntax.RedirOperator values as --tojson writes them.
constexpr int kRedirectIn = 56;       // <
constexpr int kRedirectInOut = 57;    // <>
constexpr int kDuplicateIn = 58;      // <&
constexpr int kHereDocument = 61;     // <<
constexpr int kHereDocumentTabs = 62; // <<-
constexpr int kHereString = 63;       // <<<

/// How backslashes act where a literal stands.
enum class Quoting
{
    None,         ///< `\x` is x, `\newline` is nothing
    Double,       ///< inside "…": only before $ ` " \ newline
    HereDocument, ///< an unquoted here-document's body: only before $ ` \ newline
    Raw,          ///< a quoted here-document's body: no escapes
};

int offsetOf(const QJsonValue& position)
{
    return position.toObject().value(QLatin1String("Offset")).toInt();
}

QString typeOf(const QJsonObject& node)
{
    return node.value(QLatin1String("Type")).toString();
}

/// The command's syntax tree walked into ShellCommands.
class Walker
{
public:
    explicit Walker(QByteArray source) : m_source(std::move(source)) {}

    /// The commands with the byte offset of their statement: JSON objects list their keys in
    /// alphabetical order (an if's Else before its Then), so walk() does not meet them in source
    /// order.
    QList<std::pair<int, ShellCommand>> found;

    QList<ShellCommand> commands()
    {
        std::stable_sort(found.begin(), found.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        QList<ShellCommand> result;
        for (const auto& [offset, command] : found)
            result.append(command);
        return result;
    }

    void walk(const QJsonValue& value)
    {
        if (value.isArray()) {
            for (const QJsonValue& item : value.toArray())
                walk(item);
            return;
        }
        if (!value.isObject())
            return;
        const QJsonObject node = value.toObject();
        // A Stmt has no Type; it has a Cmd, or only redirections (`>file`).
        if (!node.contains(QLatin1String("Type")) &&
            (node.contains(QLatin1String("Cmd")) || node.contains(QLatin1String("Redirs"))))
            statement(node);
        for (auto it = node.begin(); it != node.end(); ++it)
            walk(it.value()); // nested statements: bodies, substitutions, here-documents
    }

private:
    QString sourceText(const QJsonObject& node) const
    {
        return slice(node.value(QLatin1String("Pos")), node.value(QLatin1String("End")));
    }

    QString slice(const QJsonValue& from, const QJsonValue& to) const
    {
        const int begin = offsetOf(from);
        return QString::fromUtf8(m_source.mid(begin, offsetOf(to) - begin));
    }

    void statement(const QJsonObject& node)
    {
        const QJsonObject cmd = node.value(QLatin1String("Cmd")).toObject();
        const QString type = typeOf(cmd);
        ShellCommand command;
        if (type == QLatin1String("CallExpr")) {
            for (const QJsonValue& assign : cmd.value(QLatin1String("Assigns")).toArray())
                command.assignments.append(assignment(assign.toObject()).text);
            for (const QJsonValue& arg : cmd.value(QLatin1String("Args")).toArray())
                command.words.append(word(arg.toObject(), Quoting::None));
        } else if (type == QLatin1String("DeclClause")) {
            command.words.append(ShellWord{cmd.value(QLatin1String("Variant"))
                                               .toObject()
                                               .value(QLatin1String("Value"))
                                               .toString()});
            for (const QJsonValue& arg : cmd.value(QLatin1String("Args")).toArray())
                command.words.append(assignment(arg.toObject()));
        } else if (type == QLatin1String("LetClause")) {
            command.words.append(ShellWord{QStringLiteral("let")});
            for (const QJsonValue& expr : cmd.value(QLatin1String("Exprs")).toArray())
                command.words.append(ShellWord{sourceText(expr.toObject()), false});
        } else if (!cmd.isEmpty()) {
            return; // a compound command: walk() finds the commands inside
        }
        for (const QJsonValue& redirect : node.value(QLatin1String("Redirs")).toArray())
            addRedirection(command, redirect.toObject());
        found.append({offsetOf(node.value(QLatin1String("Pos"))), command});
    }

    void addRedirection(ShellCommand& command, const QJsonObject& redirect)
    {
        const QJsonObject target = redirect.value(QLatin1String("Word")).toObject();
        command.redirections.append(
            slice(redirect.value(QLatin1String("Pos")), target.value(QLatin1String("End"))));
        const QJsonObject fd = redirect.value(QLatin1String("N")).toObject();
        if (!fd.isEmpty() && fd.value(QLatin1String("Value")).toString() != QLatin1String("0"))
            return;
        switch (redirect.value(QLatin1String("Op")).toInt()) {
        case kRedirectIn:
        case kRedirectInOut:
        case kDuplicateIn:
            command.input = ShellCommand::Input::Redirected;
            command.inputText.clear();
            break;
        case kHereDocument:
        case kHereDocumentTabs: {
            // A quoted delimiter (`<<'EOF'`, `<<\EOF`) leaves the body as it is.
            const ShellWord delimiter = word(target, Quoting::None);
            const bool quoted = delimiter.text != sourceText(target);
            setInput(command,
                     word(redirect.value(QLatin1String("Hdoc")).toObject(),
                          quoted ? Quoting::Raw : Quoting::HereDocument),
                     QString());
            break;
        }
        case kHereString:
            setInput(command, word(target, Quoting::None), QStringLiteral("\n"));
            break;
        default:
            break;
        }
    }

    static void setInput(ShellCommand& command, const ShellWord& text, const QString& end)
    {
        command.input =
            text.literal ? ShellCommand::Input::Text : ShellCommand::Input::ExpandedText;
        command.inputText = text.literal ? text.text + end : QString();
    }

    /// `NAME=value`, `NAME+=value`, a declaration's bare `NAME` or option; the source text when
    /// it has an index, an array or expansions.
    ShellWord assignment(const QJsonObject& assign) const
    {
        const QString name =
            assign.value(QLatin1String("Name")).toObject().value(QLatin1String("Value")).toString();
        const QJsonObject value = assign.value(QLatin1String("Value")).toObject();
        if (assign.value(QLatin1String("Naked")).toBool())
            return name.isEmpty() ? word(value, Quoting::None) : ShellWord{name};
        if (assign.contains(QLatin1String("Index")) || assign.contains(QLatin1String("Array")))
            return ShellWord{sourceText(assign), false};
        const ShellWord valueWord = word(value, Quoting::None);
        if (!valueWord.literal)
            return ShellWord{sourceText(assign), false};
        const QString op = assign.value(QLatin1String("Append")).toBool() ? QStringLiteral("+=")
                                                                          : QStringLiteral("=");
        return ShellWord{name + op + valueWord.text};
    }

    ShellWord word(const QJsonObject& node, Quoting quoting) const
    {
        ShellWord result;
        for (const QJsonValue& partValue : node.value(QLatin1String("Parts")).toArray()) {
            const QJsonObject part = partValue.toObject();
            const QString type = typeOf(part);
            if (type == QLatin1String("Lit")) {
                result.text += unescape(part.value(QLatin1String("Value")).toString(), quoting,
                                        &result.pattern);
            } else if (type == QLatin1String("SglQuoted") &&
                       !part.value(QLatin1String("Dollar")).toBool()) {
                result.text += part.value(QLatin1String("Value")).toString();
            } else if (type == QLatin1String("DblQuoted") &&
                       !part.value(QLatin1String("Dollar")).toBool()) {
                const ShellWord inner = word(part, Quoting::Double);
                result.text += inner.text;
                result.literal = result.literal && inner.literal;
            } else {
                result.literal = false; // $x, ${x}, $(…), `…`, $((…)), <(…), $'…', $"…", extglobs
            }
        }
        if (!result.literal)
            result.text = sourceText(node);
        return result;
    }

    /// `text` after the backslash removal of `quoting`; sets `*pattern` on an unquoted glob or
    /// brace character.
    static QString unescape(const QString& text, Quoting quoting, bool* pattern)
    {
        if (quoting == Quoting::Raw)
            return text;
        const QString escapable = quoting == Quoting::Double         ? QStringLiteral("$`\"\\\n")
                                  : quoting == Quoting::HereDocument ? QStringLiteral("$`\\\n")
                                                                     : QString();
        QString out;
        for (qsizetype i = 0; i < text.size(); ++i) {
            const QChar c = text[i];
            if (c == QLatin1Char('\\') && i + 1 < text.size() &&
                (quoting == Quoting::None || escapable.contains(text[i + 1]))) {
                ++i;
                if (text[i] != QLatin1Char('\n'))
                    out += text[i];
                continue;
            }
            // `*`, `?`, `[…]`, `{…}`: a pathname or brace expansion (a lone `[` is the test
            // command).
            if (quoting == Quoting::None &&
                (c == QLatin1Char('*') || c == QLatin1Char('?') ||
                 (c == QLatin1Char('[') && text.indexOf(QLatin1Char(']'), i + 1) > i) ||
                 (c == QLatin1Char('{') && text.indexOf(QLatin1Char('}'), i + 1) > i)))
                *pattern = true;
            out += c;
        }
        return out;
    }

    QByteArray m_source;
};

} // namespace

Expected<QList<ShellCommand>> ShellSyntax::commands(const QString& script)
{
    const QByteArray source = script.toUtf8(); // Pos and End are byte offsets into this
    QProcess shfmt;
    shfmt.start(QStringLiteral("shfmt"),
                {QStringLiteral("--tojson"), QStringLiteral("-ln"), QStringLiteral("bash")});
    if (!shfmt.waitForStarted(kParserTimeoutMs))
        return makeError(
            QStringLiteral("cannot run the shell parser shfmt: %1").arg(shfmt.errorString()));
    shfmt.write(source);
    shfmt.closeWriteChannel();
    if (!shfmt.waitForFinished(kParserTimeoutMs)) {
        shfmt.kill();
        shfmt.waitForFinished();
        return makeError(QStringLiteral("the shell parser shfmt did not answer within %1 s")
                             .arg(kParserTimeoutMs / 1000));
    }
    if (shfmt.exitStatus() != QProcess::NormalExit || shfmt.exitCode() != 0) {
        QString message = QString::fromUtf8(shfmt.readAllStandardError()).trimmed();
        message.remove(QStringLiteral("<standard input>:"));
        if (message.isEmpty())
            message = QStringLiteral("shfmt failed with exit status %1").arg(shfmt.exitCode());
        return makeError(QStringLiteral("the shell parser cannot read it: %1").arg(message));
    }
    QJsonParseError error;
    const QJsonDocument tree = QJsonDocument::fromJson(shfmt.readAllStandardOutput(), &error);
    if (error.error != QJsonParseError::NoError || !tree.isObject())
        return makeError(QStringLiteral("the shell parser's syntax tree is not readable JSON: %1")
                             .arg(error.errorString()));
    Walker walker(source);
    walker.walk(tree.object());
    return walker.commands();
}

} // namespace sbw
