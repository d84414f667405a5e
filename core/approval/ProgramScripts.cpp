#include "approval/ProgramScripts.h"

#include <QRegularExpression>

namespace sbw {
namespace {

/// How a program takes its script: as an option's value, from a file, or as the first operand.
struct ScriptOptions
{
    const char* textOptions;    ///< short options whose value is script text (sed -e)
    QStringList textLongOptions;
    const char* fileOptions;    ///< short options that read script code from a file (sed -f)
    QStringList fileLongOptions;
    const char* valueOptions;   ///< other short options that take a value (awk -F, -v)
    QStringList valueLongOptions;
};

/// The script texts of a command line, or why they are not seen.
struct Scripts
{
    QStringList texts;
    QString unseen;
};

/// `--name=value` or `--name value`: whether `word` is one of `options`, and its value.
bool longOption(const QList<ShellWord>& arguments, qsizetype& i, const QStringList& options,
                ShellWord* value)
{
    const QString& word = arguments[i].text;
    for (const QString& option : options) {
        if (word.startsWith(option + QLatin1Char('='))) {
            *value = ShellWord{word.mid(option.size() + 1), arguments[i].literal};
            return true;
        }
        if (word == option) {
            if (++i < arguments.size())
                *value = arguments[i];
            return true;
        }
    }
    return false;
}

Scripts scripts(const QList<ShellWord>& arguments, const ScriptOptions& options)
{
    Scripts found;
    QList<ShellWord> texts;
    bool fromOptions = false;
    bool operandSeen = false;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString& word = arguments[i].text;
        ShellWord value;
        if (word == QLatin1String("--")) {
            if (!fromOptions && i + 1 < arguments.size())
                texts.append(arguments[i + 1]);
            operandSeen = true;
            break;
        }
        if (word.startsWith(QLatin1String("--"))) {
            if (longOption(arguments, i, options.textLongOptions, &value)) {
                texts.append(value);
                fromOptions = true;
            } else if (longOption(arguments, i, options.fileLongOptions, &value)) {
                found.unseen = QStringLiteral("it reads its script from a file (%1)").arg(word);
                return found;
            } else {
                longOption(arguments, i, options.valueLongOptions, &value);
            }
            continue;
        }
        if (word.size() > 1 && word.startsWith(QLatin1Char('-'))) {
            // The first letter that takes a value takes the rest of the cluster or the next word.
            for (qsizetype k = 1; k < word.size(); ++k) {
                const char letter = word[k].toLatin1();
                const bool text = QByteArray(options.textOptions).contains(letter);
                const bool file = QByteArray(options.fileOptions).contains(letter);
                if (!text && !file && !QByteArray(options.valueOptions).contains(letter))
                    continue;
                if (file) {
                    found.unseen = QStringLiteral("it reads its script from a file (-%1)")
                                       .arg(QLatin1Char(letter));
                    return found;
                }
                if (k + 1 < word.size())
                    value = ShellWord{word.mid(k + 1), arguments[i].literal};
                else if (++i < arguments.size())
                    value = arguments[i];
                if (text) {
                    texts.append(value);
                    fromOptions = true;
                }
                break;
            }
            continue;
        }
        if (!fromOptions && !operandSeen)
            texts.append(arguments[i]);
        operandSeen = true;
        break;
    }
    for (const ShellWord& text : texts) {
        if (!text.literal) {
            found.unseen = QStringLiteral("its script has expansions (%1)").arg(text.text);
            return found;
        }
        found.texts.append(text.text);
    }
    return found;
}

/// Removes the bodies of sed's `s` and `y` commands and of its regular-expression addresses,
/// so that what remains are commands, flags and line addresses.
QString sedCommandsOnly(const QString& script)
{
    // s/RE/REPLACEMENT/FLAGS and y/A/B/ with any delimiter; \%RE% and /RE/ addresses.
    static const QRegularExpression bodies(QStringLiteral(
        R"((?:[sy]([^\\\n])(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1)|)"
        R"((?:\\([^\\\n])(?:(?!\2)[^\\\n]|\\.)*\2)|(?:/(?:[^/\\\n]|\\.)*/))"));
    QString commands = script;
    commands.replace(bodies, QStringLiteral("s"));
    return commands;
}

} // namespace

QString awkUnseenReason(const QList<ShellWord>& arguments)
{
    static const ScriptOptions kAwk{"e", {QStringLiteral("--source")},
                                    "fEil", {QStringLiteral("--file"), QStringLiteral("--exec"),
                                             QStringLiteral("--include"), QStringLiteral("--load")},
                                    "vF", {QStringLiteral("--assign"), QStringLiteral("--field-separator")}};
    const Scripts found = scripts(arguments, kAwk);
    if (!found.unseen.isEmpty())
        return found.unseen;
    for (const QString& text : found.texts) {
        if (text.contains(QLatin1String("system")) || text.contains(QLatin1Char('|')) ||
            text.contains(QLatin1String("@load")))
            return QStringLiteral("its program may start commands (system(), a pipe, @load)");
    }
    return {};
}

QString sedUnseenReason(const QList<ShellWord>& arguments)
{
    static const ScriptOptions kSed{"e", {QStringLiteral("--expression")},
                                    "f", {QStringLiteral("--file")},
                                    "l", {QStringLiteral("--line-length")}};
    const Scripts found = scripts(arguments, kSed);
    if (!found.unseen.isEmpty())
        return found.unseen;
    // GNU sed's `e [COMMAND]` (a command letter after a separator and an address) and the `e`
    // flag of `s` run shell commands.
    static const QRegularExpression eCommand(QStringLiteral(R"((?:^|[;\n{}])[\s0-9$,~+!s]*e)"));
    static const QRegularExpression sWithE(QStringLiteral(
        R"(s([^\\\n])(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[a-zA-Z0-9]*e)"));
    for (const QString& text : found.texts) {
        if (text.contains(sWithE) || sedCommandsOnly(text).contains(eCommand))
            return QStringLiteral("its script may run shell commands (GNU sed's e command or flag)");
    }
    return {};
}

} // namespace sbw
