#include "changes/ChangeWatch.h"

#include "changes/FileChangeBounds.h"

#include <QCryptographicHash>
#include <QDir>
#include <QRandomGenerator>

namespace sbw {
namespace {

using namespace file_change_bounds;

QByteArray shellQuoted(const QByteArray& word)
{
    QByteArray quoted = word;
    quoted.replace('\'', "'\\''");
    return '\'' + quoted + '\'';
}

/// The exec after the command (bash: associative arrays, `read -d ''`). Its output, records
/// separated by NUL: "#unknown REASON" alone, or "#counts BEFORE AFTER", "#changes BYTES", the
/// records of `comm -3` (after-side ones start with a tab) up to @MAXBYTES@, "#contents", then
/// per file "#file PATH", "#old N" + N bytes, "#new N" + N bytes, and "#end". The shadow copy
/// is refreshed after "#end", under a lock, so two commands at once do not mix it up.
const char kAfterScript[] = R"BASH(export LC_ALL=C
d=@STATE@ t=@TOKEN@ k=@STATE@/@KEY@ cap=@CAP@ maxd=@MAXD@
b=$d/cmd/$t.before a=$d/cmd/$t.after c=$d/cmd/$t.changes
trap 'rm -f "$d/cmd/$t".*' EXIT
if [ ! -f "$b" ]; then printf '#unknown %s\0' 'the scan before the command left no list'; exit 0; fi
@SCAN@ >"$a"
printf '#counts %s %s\0' "$(tr -cd '\0' <"$b" | wc -c)" "$(tr -cd '\0' <"$a" | wc -c)"
comm -3 -z --nocheck-order "$b" "$a" >"$c"
printf '#changes %s\0' "$(wc -c <"$c")"
head -c @MAXBYTES@ "$c"
printf '\0#contents\0'
mkdir -p "$k/shadow" && exec 9>"$k/lock" && flock -w 10 9
small() { set -- $1; [ "$1" = f ] && [ "$2" -le "$cap" ]; }
emit() { head -c "$cap" -- "$2" >"$d/cmd/$t.blob" 2>/dev/null || return; printf '#%s %s\0' "$1" "$(wc -c <"$d/cmd/$t.blob")"; cat "$d/cmd/$t.blob"; }
declare -A old new stale seen
fresh=0
if [ -f "$k/manifest" ]; then
  comm -23 -z --nocheck-order "$b" "$k/manifest" | head -z -n 4001 >"$d/cmd/$t.stale"
  while IFS= read -r -d '' r; do stale[${r%$'\t'*}]=1; done <"$d/cmd/$t.stale"
  [ "${#stale[@]}" -le 4000 ] && fresh=1
fi
while IFS= read -r -d '' r; do
  case $r in $'\t'*) r=${r#?}; new[${r%$'\t'*}]=${r##*$'\t'} ;; *) old[${r%$'\t'*}]=${r##*$'\t'} ;; esac
done < <(head -z -n 4000 "$c")
n=0
for p in "${!old[@]}" "${!new[@]}"; do
  [ -n "${seen[$p]}" ] && continue
  seen[$p]=1 o=${old[$p]} w=${new[$p]} so=0 sw=0
  [ -n "$o" ] && small "$o" && so=1
  [ -n "$w" ] && small "$w" && sw=1
  [ $so = 1 ] || [ $sw = 1 ] || continue
  [ $n -ge "$maxd" ] && break
  n=$((n + 1))
  printf '#file %s\0' "$p"
  if [ $so = 1 ]; then
    if [ "${o#f 0 }" != "$o" ]; then printf '#old 0\0'
    elif [ $fresh = 1 ] && [ -z "${stale[$p]}" ] && [ -f "$k/shadow$p" ]; then emit old "$k/shadow$p"; fi
  fi
  [ $sw = 1 ] && emit new "$p"
done
printf '#end\0'
exec >/dev/null 2>&1
if [ -f "$k/manifest" ]; then comm -23 -z --nocheck-order "$k/manifest" "$a"; fi |
  while IFS= read -r -d '' r; do rm -f -- "$k/shadow${r%$'\t'*}"; done
if [ "$(du -sk "$k/shadow" | cut -f1)" -lt @BUDGET@ ]; then
  if [ -f "$k/manifest" ]; then comm -13 -z --nocheck-order "$k/manifest" "$a"; else cat "$a"; fi |
    while IFS= read -r -d '' r; do m=${r##*$'\t'}; small "$m" && [ "${m#f 0 }" = "$m" ] && printf '%s\0' "${r%$'\t'*}"; done |
    head -z -n @MAXSHADOW@ | xargs -0r grep -lIZ '' -- | xargs -0r cp --parents -p -t "$k/shadow" --
fi
mv -f "$a" "$k/manifest"
find "$d/cmd" -type f -mmin +1440 -delete
)BASH";

} // namespace

ChangeWatch ChangeWatch::forCommand(const QString& workdir)
{
    QStringList folders{QStringLiteral("/root")};
    if (!workdir.isEmpty())
        folders.append(workdir);
    return ChangeWatch(folders);
}

ChangeWatch::ChangeWatch(const QStringList& folders, const QByteArray& stateFolder) : m_state(stateFolder)
{
    QStringList clean;
    for (const QString& folder : folders) {
        if (folder.startsWith(QLatin1Char('/')))
            clean.append(QDir::cleanPath(folder));
    }
    clean.sort();
    clean.removeDuplicates();
    for (const QString& folder : clean) {
        const bool inside = std::any_of(m_folders.begin(), m_folders.end(), [&](const QString& outer) {
            return outer == QLatin1String("/") || folder.startsWith(outer + QLatin1Char('/'));
        });
        if (!inside)
            m_folders.append(folder);
    }
    m_token = QByteArray::number(QRandomGenerator::global()->generate64(), 16);
}

QByteArray ChangeWatch::stateKey() const
{
    return QCryptographicHash::hash(m_folders.join(QLatin1Char('\n')).toUtf8(), QCryptographicHash::Sha1)
        .toHex()
        .left(16);
}

QByteArray ChangeWatch::scanPipeline() const
{
    QByteArray roots;
    for (const QString& folder : m_folders)
        roots += shellQuoted(folder.toUtf8()) + ' ';
    // -xdev: other file systems (/proc, /sys, /dev, /run, mounts) are not the command's files;
    // the prunes cover a folder of `/` itself and the scans' own state.
    return "find " + roots + "-xdev \\( -path " + shellQuoted(m_state) +
           " -o -path /proc -o -path /sys -o -path /dev -o -path /run \\) -prune -o"
           " \\( -type d -printf '%p\\td 0 0\\0' -o -printf '%p\\t%y %s %T@\\0' \\) 2>/dev/null"
           " | head -z -n " + QByteArray::number(kMaxScanEntries + 1) + " | LC_ALL=C sort -z";
}

QByteArray ChangeWatch::beforeScanCommand() const
{
    return "{ mkdir -p " + shellQuoted(m_state + "/cmd") + " && " + scanPipeline() + " >" + shellQuoted(beforeFile()) +
           "; } 2>/dev/null || true";
}

QByteArray ChangeWatch::afterScanCommand() const
{
    QByteArray script(kAfterScript);
    // The scan last: its folders are the caller's text and may hold an "@NAME@" of their own.
    script.replace("@STATE@", shellQuoted(m_state))
        .replace("@TOKEN@", m_token)
        .replace("@KEY@", stateKey())
        .replace("@CAP@", QByteArray::number(kMaxDiffFileBytes))
        .replace("@MAXD@", QByteArray::number(kMaxDiffFiles))
        .replace("@MAXBYTES@", QByteArray::number(kMaxChangeRecordBytes))
        .replace("@BUDGET@", QByteArray::number(kShadowBudgetKiB))
        .replace("@MAXSHADOW@", QByteArray::number(kMaxShadowFilesPerCommand))
        .replace("@SCAN@", scanPipeline());
    return "exec bash -c " + shellQuoted(script) + " sbw-changes";
}

} // namespace sbw
