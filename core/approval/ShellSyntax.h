#pragma once

#include "base/Expected.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace sbw {

/// One word of a shell command.
struct ShellWord
{
    /// The word after quote removal (`"rm"`, `\rm` and `r''m` are all "rm"); a word with
    /// expansions (parameters, substitutions, arithmetic, `$'…'`) keeps its source text.
    QString text;
    bool literal = true; ///< no expansions: `text` is what the command receives
    /// An unquoted `*`, `?`, `[…]` or `{…}`: the shell may turn the word into other words
    /// (pathname or brace expansion).
    bool pattern = false;
};

/// One simple command of a shell script: what the shell starts as one program, builtin or
/// function call, with its own assignments and redirections.
struct ShellCommand
{
    /// Where the command reads its standard input from, by its own redirections.
    enum class Input
    {
        Inherited,    ///< the shell's, or a pipe: not known from the command
        Text,         ///< a here-document or here-string without expansions: `inputText`
        ExpandedText, ///< a here-document or here-string built from expansions
        Redirected,   ///< a file or descriptor (`<`, `<>`, `<&`)
    };

    QStringList assignments;  ///< leading `NAME=value` words, in ShellWord::text form
    QList<ShellWord> words;   ///< program and arguments; empty: only assignments or redirections
    QStringList redirections; ///< as written: "2>/dev/null", "<<EOF", ">$(f)"
    Input input = Input::Inherited;
    QString inputText; ///< Input::Text: the text fed to standard input
};

/// The shell parser of the approval policy: `shfmt --tojson -ln bash` (mvdan/sh) run as a child
/// process, its syntax tree walked whole.
class ShellSyntax
{
public:
    /// Every simple command of `script` (bash syntax), in source order, parents before the
    /// commands nested in them: those of lists, pipelines, subshells, groups, function bodies,
    /// if/for/while/until/case/select bodies, command and process substitutions (also inside
    /// redirections, here-documents, `[[ ]]` and arithmetic), `coproc` and `time`. A declaration
    /// (`export`, `local`, `declare`, `readonly`, `typeset`) and `let` are commands too; `[[ ]]`
    /// and `(( ))` themselves are not. A function call is a command named by the function.
    /// Errors: "the shell parser cannot read it: 1:5: reached EOF without matching ( with )",
    /// "cannot run the shell parser shfmt: REASON".
    static Expected<QList<ShellCommand>> commands(const QString& script);
};

} // namespace sbw
