#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

namespace sbw {

class SftpClient;

/// One file an ephemeral run gave back: a file its script wrote under out/ in its working
/// folder, copied to the host.
struct RunArtifact
{
    QString name;     ///< path below out/, '/'-separated, e.g. "chart.png" or "tables/a.csv"
    qint64 size = 0;  ///< bytes
    QString hostPath; ///< absolute path of the host copy
};

/// How much of out/ comes back: at most maxCount files and maxBytes bytes together.
struct ArtifactCaps
{
    static constexpr int kDefaultMaxCount = 100;
    static constexpr qint64 kDefaultMaxBytes = qint64(100) << 20;
    int maxCount = kDefaultMaxCount;
    qint64 maxBytes = kDefaultMaxBytes;
};

/// What collectArtifacts() brought back.
struct ArtifactCollection
{
    QList<RunArtifact> artifacts; ///< in name order
    /// Empty when every file came back; otherwise what was left in the guest and why, e.g.
    /// "out/ held 6 files (204810 bytes); 3 came back: 2 past the cap of 3 files were skipped
    /// (f4, f5); 1 past the cap of 102400 bytes was skipped (big.bin)". Also names entries that
    /// are not regular files (symlinks, devices) and files that failed to download.
    QString note;
};

/// The host folder of every run's files: dataDir()/runs. A run's artifacts are in
/// runsFolder()/<domain name>/out.
QString runsFolder();

/// Copies the regular files below the guest folder `guestFolder` (recursively) into
/// `hostFolder` (created when there is something to copy), keeping their relative names. Files
/// are taken in name order; once maxCount files are taken the rest are skipped, and a file that
/// would take the total past maxBytes is skipped (smaller ones after it may still come). The
/// byte cap holds on the host whatever sizes the guest reports. A guest folder that does not
/// exist gives nothing and no note. Names the guest reports are checked: "", ".", "..", and
/// names with '/' are skipped. Blocks: call on a worker thread.
ArtifactCollection collectArtifacts(SftpClient& sftp, const QByteArray& guestFolder,
                                    const QString& hostFolder, const ArtifactCaps& caps);

/// The files below the host folder `hostFolder` as artifacts (name order), e.g. to reopen an
/// earlier run's folder; empty when it does not exist.
QList<RunArtifact> artifactsIn(const QString& hostFolder);

/// "512 bytes", "3.0 KiB", "1.5 MiB", "2.0 GiB".
QString byteSizeText(qint64 bytes);

} // namespace sbw

Q_DECLARE_METATYPE(sbw::RunArtifact)
