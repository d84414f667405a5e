#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace sbw {

/// One command of a shell line as the approval policy judges it (policyCommands()).
struct PolicyCommand
{
    /// The canonical form, shown to the approver and the only one an allow rule matches:
    /// "ASSIGNMENTS PROGRAM ARGUMENTS REDIRECTIONS", space-separated; words after quote removal
    /// (a word with expansions as written); PROGRAM is the program's name (`rm` for `\rm`,
    /// `"rm"`), or its path as written when it has one (`/bin/rm`, `./ls`).
    QString text;
    /// `text` and its other spellings, any of which a deny or ask rule may match: with and
    /// without the assignments, with the program's written path and with its bare name, with
    /// and without the redirections.
    QStringList forms;
    /// Why the command is never allowed (asked unless a deny or ask rule matches): "eval: the
    /// policy cannot see what it runs". Empty for an ordinary command.
    QString askedBecause;

    bool operator==(const PolicyCommand&) const = default;
};

/// Every command that `script` (a bash command line or sh script) runs, as far as the text
/// shows it, in source order; never empty. `environment` ("NAME=value", e.g. an exec's
/// ActionRequest::environment) counts as leading assignments of every command.
///
/// - Every simple command of the syntax tree (ShellSyntax::commands()), nested ones included.
/// - Wrappers are seen through (kWrappers in PolicyCommands.cpp: env, command, builtin, exec,
///   nice, nohup, timeout, stdbuf, time, xargs, busybox, setsid, sudo, doas, chroot, ionice,
///   flock, taskset, chrt, prlimit, strace, unshare, nsenter):
///   the wrapper is one command (`nice -n 5 rm x`), the program it runs another (`rm x`), with
///   the wrapper's own assignments (`env A=1 rm`). A program run by xargs gets the argument
///   "…" for the ones it reads. What find's -exec, -execdir, -ok and -okdir run is a command.
/// - A shell's code is judged the same way, to a depth of kMaxShellDepth shells: `sh -c CODE`
///   and a shell fed a here-document or here-string without expansions.
/// - Asked, never allowed (PolicyCommand::askedBecause): a line the parser cannot read; a
///   program name with expansions or unquoted glob/brace characters; eval, source, `.`,
///   alias, mapfile/readarray -C, trap with code; a shell reading code from its standard
///   input, from an argument with expansions or nested too deep; interpreters given code as an
///   argument (kOpaquePrograms: python -c, perl -e, node -e, …); awk programs and sed scripts
///   that may start commands (ProgramScripts.h); git -c, hash -p, enable -f; a wrapper whose
///   program is not literal text; `env -S`, `flock -c`.
QList<PolicyCommand> policyCommands(const QString& script, const QStringList& environment = {});

} // namespace sbw
