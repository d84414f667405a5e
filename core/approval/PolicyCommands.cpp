#include "approval/PolicyCommands.h"

#include "approval/ProgramScripts.h"
#include "approval/ShellSyntax.h"

#include <fnmatch.h>

namespace sbw {
namespace {

/// `sh -c 'sh -c "sh -c …"'`: code nested deeper than this many shells is asked.
constexpr int kMaxShellDepth = 4;

/// A program that runs another one given as its first operand after its options.
struct Wrapper
{
    const char* name;
    const char* valueOptions = "";      ///< short options that take a value (`-n 5`, `-n5`)
    QStringList valueLongOptions = {};  ///< long options that take a value as the next word
    int operandsBeforeProgram = 0;      ///< timeout's DURATION, chroot's DIR
    bool assignments = false;           ///< NAME=value words before the program are its environment
    const char* notRunningOptions = ""; ///< short options with which it runs nothing (`command -v`)
    const char* opaqueOptions = ""; ///< short options that take a whole command as text (`env -S`)
    QStringList opaqueLongOptions = {};
    bool appendsArguments = false;        ///< adds the arguments it reads (xargs)
    const char* defaultProgram = nullptr; ///< what it runs without a program operand (xargs: echo)
};

const QList<Wrapper>& wrappers()
{
    static const QList<Wrapper> kWrappers{
        {"env", "uC", {"--unset", "--chdir"}, 0, true, "", "S", {"--split-string"}},
        {"command", "", {}, 0, false, "vV"},
        {"builtin"},
        {"exec", "a"},
        {"nice", "n", {"--adjustment"}},
        {"nohup"},
        {"timeout", "ks", {"--kill-after", "--signal"}, 1},
        {"stdbuf", "ioe", {"--input", "--output", "--error"}},
        {"time", "fo", {"--format", "--output"}},
        {"xargs",
         "adEILnPs",
         {"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--max-lines",
          "--process-slot-var"},
         0,
         false,
         "",
         "",
         {},
         true,
         "echo"},
        {"busybox"},
        {"setsid"},
        {"sudo",
         "ugpCrtTUDRh",
         {"--user", "--group", "--prompt", "--close-from", "--role", "--type", "--command-timeout",
          "--other-user", "--chdir", "--chroot", "--host"},
         0,
         true,
         "elvV"},
        {"doas", "uC"},
        {"chroot", "", {"--userspec", "--groups"}, 1},
        {"ionice", "cn", {"--class", "--classdata"}},
        {"flock", "wE", {"--timeout", "--conflict-exit-code"}, 1, false, "", "c", {"--command"}},
        {"taskset", "", {}, 1, false, "p"},
        {"chrt", "T", {"--sched-runtime", "--sched-period", "--sched-deadline"}, 1, false, "p"},
        {"prlimit", "p", {"--pid"}},
        {"strace", "abeEIoOpPsSuX", {"--attach", "--output", "--user", "--string-limit"}},
        {"unshare", "SGRw", {"--setuid", "--setgid", "--root", "--wd"}},
        {"nsenter", "tSGwr", {"--target", "--setuid", "--setgid", "--wd", "--root"}},
    };
    return kWrappers;
}

/// Programs whose effect the policy cannot see from their words.
struct OpaqueProgram
{
    enum class When
    {
        Always,     ///< any use
        CodeOption, ///< with one of `codeOptions` / `codeLongOptions`, or an argument with
                    ///< expansions
        TrapCode,   ///< trap with a code operand
        AwkProgram, ///< an awk program that may start commands (system(), pipes) or is unseen
        SedScript,  ///< a sed script with GNU sed's `e` command or flag, or unseen
    };
    const char* namePattern; ///< fnmatch(3) glob on the program's name
    When when;
    const char* codeOptions = "";
    QStringList codeLongOptions = {};
    const char* why = "the policy cannot see what the code does";
};

const QList<OpaqueProgram>& opaquePrograms()
{
    using When = OpaqueProgram::When;
    static const QList<OpaqueProgram> kOpaquePrograms{
        {"eval", When::Always, "", {}, "the policy cannot see what it runs"},
        {"source", When::Always, "", {}, "the policy cannot see the commands of the file it reads"},
        {".", When::Always, "", {}, "the policy cannot see the commands of the file it reads"},
        {"alias", When::Always, "", {}, "later commands of the line may run what it defines"},
        {"trap", When::TrapCode, "", {}, "the policy cannot see the code it runs"},
        {"mapfile", When::CodeOption, "C", {}, "the policy cannot see the callback it runs"},
        {"readarray", When::CodeOption, "C", {}, "the policy cannot see the callback it runs"},
        {"watch", When::Always, "", {}, "it runs its arguments as shell code"},
        {"fish", When::CodeOption, "c", {"--command", "--init-command"}},
        {"su", When::CodeOption, "c", {"--command", "--session-command"}},
        {"python", When::CodeOption, "c"},
        {"python[0-9]*", When::CodeOption, "c"},
        {"pypy*", When::CodeOption, "c"},
        {"perl", When::CodeOption, "eE"},
        {"perl[0-9]*", When::CodeOption, "eE"},
        {"ruby", When::CodeOption, "e"},
        {"node", When::CodeOption, "ep", {"--eval", "--print"}},
        {"nodejs", When::CodeOption, "ep", {"--eval", "--print"}},
        {"php", When::CodeOption, "r"},
        {"php[0-9]*", When::CodeOption, "r"},
        {"lua", When::CodeOption, "e"},
        {"lua[0-9]*", When::CodeOption, "e"},
        {"luajit", When::CodeOption, "e"},
        {"Rscript", When::CodeOption, "e"},
        {"tclsh*", When::Always, "", {}, "the policy cannot see what its script does"},
        {"parallel", When::Always, "", {}, "it runs its arguments as shell code"},
        {"runuser", When::Always, "", {}, "it runs a shell or a program as another user"},
        {"script", When::CodeOption, "c", {"--command"}},
        {"git", When::CodeOption, "c", {"--config-env"},
         "a configuration given on the command line may run programs (aliases, pagers, hooks)"},
        {"hash", When::CodeOption, "p", {}, "later commands of the line may run what it names"},
        {"enable", When::CodeOption, "f", {}, "it loads a builtin's code from a file"},
        {"awk", When::AwkProgram},
        {"[gmn]awk", When::AwkProgram},
        {"sed", When::SedScript},
    };
    return kOpaquePrograms;
}

/// Shells: their code (`-c CODE`, a here-document) is judged as commands of its own.
const QStringList& shells()
{
    static const QStringList kShells{QStringLiteral("sh"),   QStringLiteral("bash"),
                                     QStringLiteral("dash"), QStringLiteral("zsh"),
                                     QStringLiteral("ksh"),  QStringLiteral("mksh"),
                                     QStringLiteral("ash"),  QStringLiteral("rbash"),
                                     QStringLiteral("posh"), QStringLiteral("yash")};
    return kShells;
}

bool globMatches(const char* pattern, const QString& text)
{
    return ::fnmatch(pattern, text.toUtf8().constData(), 0) == 0;
}

bool isShortCluster(const QString& word)
{
    return word.size() > 1 && word.startsWith(QLatin1Char('-')) &&
           !word.startsWith(QLatin1String("--"));
}

/// Whether `word` is a long option of `options`, alone or as `--name=value`.
bool isLongOption(const QString& word, const QStringList& options)
{
    for (const QString& option : options) {
        if (word == option || word.startsWith(option + QLatin1Char('=')))
            return true;
    }
    return false;
}

bool hasShortOption(const QString& word, const char* letters)
{
    if (!isShortCluster(word))
        return false;
    for (const char* letter = letters; *letter; ++letter) {
        if (word.indexOf(QLatin1Char(*letter), 1) > 0)
            return true;
    }
    return false;
}

QString joined(const QStringList& assignments, const QString& program,
               const QList<ShellWord>& arguments, const QStringList& redirections)
{
    QStringList parts = assignments;
    parts.append(program);
    for (const ShellWord& word : arguments)
        parts.append(word.text);
    parts.append(redirections);
    parts.removeAll(QString());
    return parts.join(QLatin1Char(' '));
}

/// The policy's view of one simple command and the commands it runs.
class Resolver
{
public:
    QList<PolicyCommand> commands;

    void script(const QString& text, const QStringList& environment, int depth)
    {
        const auto parsed = ShellSyntax::commands(text);
        if (!parsed) {
            const QString line = text.trimmed();
            commands.append({line, {line}, parsed.error().message});
            return;
        }
        if (parsed->isEmpty()) { // only comments or blanks: judged as written
            const QString line = text.trimmed();
            commands.append({line, {line}, {}});
            return;
        }
        for (const ShellCommand& command : parsed.value())
            simpleCommand(command, environment, depth);
    }

private:
    /// One layer: the program in `words` (wrappers peeled off one by one).
    void simpleCommand(const ShellCommand& command, const QStringList& environment, int depth)
    {
        QStringList assignments = environment + command.assignments;
        QList<ShellWord> words = command.words;
        for (;;) {
            if (words.isEmpty()) {
                const QString text = joined(assignments, {}, {}, command.redirections);
                commands.append({text, {text, joined({}, {}, {}, command.redirections)}, {}});
                return;
            }
            const ShellWord& program = words.first();
            if (!program.literal || program.pattern) {
                add(command, assignments, words,
                    QStringLiteral(
                        "the program name %1 is not literal text: the policy cannot see what runs")
                        .arg(program.text));
                return;
            }
            const QString name = program.text.section(QLatin1Char('/'), -1);
            const QList<ShellWord> arguments = words.mid(1);
            if (shells().contains(name)) {
                shell(command, assignments, words, depth);
                return;
            }
            if (name == QLatin1String("find")) {
                find(command, assignments, words, depth);
                return;
            }
            const Wrapper* wrapper = findWrapper(name);
            if (!wrapper) {
                add(command, assignments, words, opaqueReason(name, arguments));
                return;
            }
            QString why;
            QStringList innerAssignments = assignments;
            const auto inner = wrapped(*wrapper, arguments, &innerAssignments, &why);
            add(command, assignments, words, why);
            if (!inner)
                return;
            assignments = innerAssignments;
            words = *inner;
        }
    }

    void add(const ShellCommand& command, const QStringList& assignments,
             const QList<ShellWord>& words, const QString& why)
    {
        const QString written = words.first().text;
        const QString name = written.section(QLatin1Char('/'), -1);
        const QList<ShellWord> arguments = words.mid(1);
        PolicyCommand result;
        result.text = joined(assignments, written.contains(QLatin1Char('/')) ? written : name,
                             arguments, command.redirections);
        result.forms.append(result.text);
        for (const QStringList& vars : {assignments, QStringList()}) {
            for (const QString& program : {written, name}) {
                for (const QStringList& redirections : {command.redirections, QStringList()}) {
                    const QString form = joined(vars, program, arguments, redirections);
                    if (!result.forms.contains(form))
                        result.forms.append(form);
                }
            }
        }
        result.askedBecause = why;
        commands.append(result);
    }

    /// find is one command, and each program its `-exec`, `-execdir`, `-ok` and `-okdir` run
    /// (the words up to `;` or `+`) is another, with find's assignments.
    void find(const ShellCommand& command, const QStringList& assignments,
              const QList<ShellWord>& words, int depth)
    {
        add(command, assignments, words, {});
        static const QStringList kActions{QStringLiteral("-exec"), QStringLiteral("-execdir"),
                                          QStringLiteral("-ok"), QStringLiteral("-okdir")};
        for (qsizetype i = 1; i < words.size(); ++i) {
            if (!kActions.contains(words[i].text))
                continue;
            ShellCommand run;
            for (++i; i < words.size(); ++i) {
                if (words[i].text == QLatin1String(";") || words[i].text == QLatin1String("+"))
                    break;
                run.words.append(words[i]);
            }
            if (!run.words.isEmpty())
                simpleCommand(run, assignments, depth);
        }
    }

    static const Wrapper* findWrapper(const QString& name)
    {
        for (const Wrapper& wrapper : wrappers()) {
            if (name == QLatin1String(wrapper.name))
                return &wrapper;
        }
        return nullptr;
    }

    /// The words a wrapper runs (its program and arguments); nullopt when it runs none, or
    /// when the policy cannot tell (`*why` says so). Its NAME=value words go to `assignments`.
    static std::optional<QList<ShellWord>> wrapped(const Wrapper& wrapper,
                                                   const QList<ShellWord>& arguments,
                                                   QStringList* assignments, QString* why)
    {
        const QString name = QLatin1String(wrapper.name);
        QStringList ownAssignments;
        qsizetype i = 0;
        int operands = 0;
        for (; i < arguments.size(); ++i) {
            const ShellWord& word = arguments[i];
            if (!word.literal) {
                *why = QStringLiteral("%1: the program it runs is not literal text: the policy "
                                      "cannot see what runs")
                           .arg(name);
                return std::nullopt;
            }
            const QString& text = word.text;
            if (text == QLatin1String("--")) {
                ++i;
                break;
            }
            if (text == QLatin1String("-")) // env's -i; no program is named "-"
                continue;
            if (hasShortOption(text, wrapper.opaqueOptions) ||
                isLongOption(text, wrapper.opaqueLongOptions)) {
                *why = QStringLiteral("%1 %2: the policy cannot see what it runs").arg(name, text);
                return std::nullopt;
            }
            if (hasShortOption(text, wrapper.notRunningOptions))
                return std::nullopt;
            if (isLongOption(text, wrapper.valueLongOptions)) {
                if (!text.contains(QLatin1Char('=')))
                    ++i;
                continue;
            }
            if (text.startsWith(QLatin1String("--")))
                continue;
            if (isShortCluster(text)) {
                // The first value-taking letter takes the rest of the cluster, or the next word.
                for (qsizetype k = 1; k < text.size(); ++k) {
                    if (QByteArray(wrapper.valueOptions).contains(text[k].toLatin1())) {
                        if (k + 1 == text.size())
                            ++i;
                        break;
                    }
                }
                continue;
            }
            break;
        }
        for (; i < arguments.size(); ++i) {
            const QString& text = arguments[i].text;
            if (!arguments[i].literal) {
                *why = QStringLiteral("%1: the program it runs is not literal text: the policy "
                                      "cannot see what runs")
                           .arg(name);
                return std::nullopt;
            }
            if (wrapper.assignments && isAssignment(text)) {
                ownAssignments.append(text);
                continue;
            }
            if (operands < wrapper.operandsBeforeProgram) {
                ++operands;
                continue;
            }
            break;
        }
        QList<ShellWord> inner = arguments.mid(i);
        if (inner.isEmpty() && wrapper.defaultProgram)
            inner.append(ShellWord{QLatin1String(wrapper.defaultProgram)});
        if (inner.isEmpty())
            return std::nullopt;
        if (wrapper.appendsArguments)
            inner.append(ShellWord{QStringLiteral("…"), false});
        assignments->append(ownAssignments);
        return inner;
    }

    static bool isAssignment(const QString& word)
    {
        const qsizetype equals = word.indexOf(QLatin1Char('='));
        if (equals <= 0 || word[0].isDigit())
            return false;
        for (qsizetype k = 0; k < equals; ++k) {
            if (!word[k].isLetterOrNumber() && word[k] != QLatin1Char('_'))
                return false;
        }
        return true;
    }

    static QString opaqueReason(const QString& name, const QList<ShellWord>& arguments)
    {
        for (const OpaqueProgram& opaque : opaquePrograms()) {
            if (!globMatches(opaque.namePattern, name))
                continue;
            const QString because = QLatin1String(opaque.why);
            switch (opaque.when) {
            case OpaqueProgram::When::Always:
                return QStringLiteral("%1: %2").arg(name, because);
            case OpaqueProgram::When::TrapCode:
                return trapHasCode(arguments) ? QStringLiteral("trap with code: %1").arg(because)
                                              : QString();
            case OpaqueProgram::When::AwkProgram:
            case OpaqueProgram::When::SedScript: {
                const QString unseen = opaque.when == OpaqueProgram::When::AwkProgram
                                           ? awkUnseenReason(arguments)
                                           : sedUnseenReason(arguments);
                return unseen.isEmpty() ? QString() : QStringLiteral("%1: %2").arg(name, unseen);
            }
            case OpaqueProgram::When::CodeOption:
                for (const ShellWord& word : arguments) {
                    if (!word.literal)
                        return QStringLiteral(
                                   "%1: an argument with expansions may be code (%2): %3")
                            .arg(name, word.text, because);
                    if (hasShortOption(word.text, opaque.codeOptions) ||
                        isLongOption(word.text, opaque.codeLongOptions))
                        return QStringLiteral("%1 %2: %3").arg(name, word.text, because);
                }
                return {};
            }
        }
        return {};
    }

    /// `trap CODE SIGNAL…`, not `trap`, `trap -l`, `trap -p`, `trap - INT`, `trap '' INT`, `trap
    /// 2`.
    static bool trapHasCode(const QList<ShellWord>& arguments)
    {
        qsizetype i = 0;
        if (i < arguments.size() && arguments[i].text == QLatin1String("--"))
            ++i;
        if (i >= arguments.size())
            return false;
        const ShellWord& code = arguments[i];
        if (!code.literal)
            return true;
        bool number = false;
        code.text.toUInt(&number);
        return !(code.text.isEmpty() || code.text == QLatin1String("-") ||
                 code.text == QLatin1String("-l") || code.text == QLatin1String("-p") || number);
    }

    /// A shell: the shell itself is a command; the code it is given, if the text shows it, is
    /// judged as a script of its own.
    void shell(const ShellCommand& command, const QStringList& assignments,
               const QList<ShellWord>& words, int depth)
    {
        const QString name = words.first().text.section(QLatin1Char('/'), -1);
        bool codeArgument = false;
        bool readsInput = false;
        qsizetype i = 1;
        for (; i < words.size(); ++i) {
            const ShellWord& word = words[i];
            if (!word.literal) {
                add(command, assignments, words,
                    QStringLiteral("%1: an argument with expansions (%2) may be code: the policy "
                                   "cannot see what runs")
                        .arg(name, word.text));
                return;
            }
            const QString& text = word.text;
            if (text == QLatin1String("--") || text == QLatin1String("-")) {
                ++i;
                break;
            }
            if (text == QLatin1String("--rcfile") || text == QLatin1String("--init-file")) {
                ++i;
                continue;
            }
            if (text.startsWith(QLatin1String("--")))
                continue;
            if (text.size() < 2 || (text[0] != QLatin1Char('-') && text[0] != QLatin1Char('+')))
                break;
            codeArgument = codeArgument || text.indexOf(QLatin1Char('c'), 1) > 0;
            readsInput = readsInput || text.indexOf(QLatin1Char('s'), 1) > 0;
            if (text.indexOf(QLatin1Char('o'), 1) > 0 || text.indexOf(QLatin1Char('O'), 1) > 0)
                ++i; // -o OPTION
        }
        // Every later word must be literal too: `sh script "$x"` passes it on, but a shell reading
        // its input might also take it for code.
        for (qsizetype k = i; k < words.size(); ++k) {
            if (!words[k].literal) {
                add(command, assignments, words,
                    QStringLiteral("%1: an argument with expansions (%2) may be code: the policy "
                                   "cannot see what runs")
                        .arg(name, words[k].text));
                return;
            }
        }
        if (codeArgument) {
            if (i >= words.size()) {
                add(command, assignments, words, {});
                return;
            }
            judgeCode(command, assignments, words, words[i].text, QStringLiteral("%1 -c").arg(name),
                      depth);
            return;
        }
        if (i < words.size() && !readsInput) { // a script file: the rules decide about it
            add(command, assignments, words, {});
            return;
        }
        switch (command.input) {
        case ShellCommand::Input::Text:
            judgeCode(command, assignments, words, command.inputText, name, depth);
            return;
        case ShellCommand::Input::ExpandedText:
            add(command, assignments, words,
                QStringLiteral("%1: the here-document it runs is built from expansions: the policy "
                               "cannot see what runs")
                    .arg(name));
            return;
        case ShellCommand::Input::Inherited:
        case ShellCommand::Input::Redirected:
            add(command, assignments, words,
                QStringLiteral(
                    "%1 reads commands from its standard input: the policy cannot see them")
                    .arg(name));
            return;
        }
    }

    void judgeCode(const ShellCommand& command, const QStringList& assignments,
                   const QList<ShellWord>& words, const QString& code, const QString& what,
                   int depth)
    {
        if (depth + 1 >= kMaxShellDepth) {
            add(command, assignments, words,
                QStringLiteral(
                    "%1: code nested in more than %2 shells: the policy does not look further")
                    .arg(what)
                    .arg(kMaxShellDepth - 1));
            return;
        }
        add(command, assignments, words, {});
        script(code, assignments, depth + 1);
    }
};

} // namespace

QList<PolicyCommand> policyCommands(const QString& script, const QStringList& environment)
{
    Resolver resolver;
    resolver.script(script, environment, 0);
    return resolver.commands;
}

} // namespace sbw
