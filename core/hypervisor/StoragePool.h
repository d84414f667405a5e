#pragma once

#include "base/Expected.h"
#include "image/GuestImage.h"

#include <QByteArrayView>
#include <QString>

#include <functional>

typedef struct _virConnect* virConnectPtr;

namespace sbw {

/// Paths, as QEMU sees them, of an image staged into the pool.
struct StagedImage
{
    QString kernel;
    QString initrd;
    QString disk; ///< read-only backing image of every overlay
    QString diskFormat;
    qint64 diskVirtualSize = 0; ///< bytes
};

/// Progress of staging an image: bytes uploaded so far of all its files' bytes; reported at
/// the start and as each tenth is passed (a few lines for a log, a second apart on a LAN).
using StagingProgress = std::function<void(qint64 sentBytes, qint64 totalBytes)>;

/// The workbench's libvirt storage pool "sandbox-workbench" (type dir): everything QEMU opens
/// (kernel, initramfs, base image, overlays) lives here, because QEMU under qemu:///system runs
/// as its own user and cannot read a user's home. Its folder is
/// /var/lib/libvirt/images/sandbox-workbench for system connections and
/// $XDG_DATA_HOME/sandbox-workbench/pool for session ones. All transfers use the storage API
/// (virStorageVolUpload, virStorageVolCreateXML), so a remote daemon works the same.
///
/// Every call blocks: use from worker threads.
class StoragePool
{
public:
    static constexpr char kName[] = "sandbox-workbench";
    /// The file name ending of a qcow2 volume (overlays of runs, workspaces and ready states).
    static constexpr QLatin1String kQcow2Suffix{".qcow2"};
    /// Of a save image (virDomainSaveFlags).
    static constexpr QLatin1String kSaveSuffix{".save"};

    /// Looks the pool up, defining, building and starting it (autostart on) when needed, and
    /// refreshes its volume list once (the other calls trust libvirt's list from then on).
    static Expected<StoragePool> open(virConnectPtr conn, bool systemConnection);

    /// Uploads the image's kernel, initramfs and disk as volumes "<buildId>-vmlinuz",
    /// "<buildId>-initrd.img" and "<buildId>-base.qcow2" unless a completed upload of this very
    /// build is there (marked by the volume "<buildId>.staged", written last). Returns their
    /// paths. In one process, a second caller for the same image and host waits for the upload
    /// under way (hearing its progress) instead of uploading over it. `progress` (may be empty)
    /// is called on this thread, only when something is uploaded.
    Expected<StagedImage> stage(const GuestImage& image, const StagingProgress& progress = {});

    /// Creates the qcow2 overlay volume `name` on `base`, as large as the base or
    /// `virtualSize` bytes when that is larger. Returns its path.
    Expected<QString> createOverlay(const QString& name, const StagedImage& base,
                                    qint64 virtualSize = 0);

    /// Creates the qcow2 overlay volume `name` on the qcow2 file `backingPath` (another
    /// overlay of the pool), `virtualSize` bytes large. Returns its path.
    Expected<QString> createOverlayOn(const QString& name, const QString& backingPath, qint64 virtualSize);

    /// Creates the empty raw volume `name` (a marker, or a file libvirt writes afterwards, after
    /// which refresh()). Returns its path.
    Expected<QString> createVolume(const QString& name);

    /// The path of volume `name`; empty when there is none.
    QString pathOf(const QString& name) const;

    /// When volume `name`'s file was last modified (its <timestamps>), seconds since the epoch;
    /// 0 when there is no such volume.
    qint64 modifiedSecs(const QString& name) const;

    /// Re-reads the folder (sizes and formats of files written outside the storage API).
    void refresh();

    /// Reads `length` bytes (0: to the end) of volume `name` from `offset` through the storage
    /// API (virStorageVolDownload), handing each chunk to `sink`, which returns false to stop.
    Expected<void> download(const QString& name, qint64 offset, qint64 length,
                            const std::function<bool(QByteArrayView chunk)>& sink);

    /// Copies volume `source` byte for byte into a new volume `target` (replacing one of that
    /// name) through the storage API (virStorageVolDownload into virStorageVolUpload), so a
    /// qcow2 overlay keeps its backing image and its internal snapshots. The source must not be
    /// open for writing (its domain stopped). Returns the new volume's path.
    Expected<QString> copyVolume(const QString& source, const QString& target);

    /// Copies volume `source` into a new volume `target` (replacing one of that name) on the
    /// daemon's side (virStorageVolCreateXMLFrom): no byte passes through this process. For raw
    /// files (a qcow2 copy would lose its backing image and internal snapshots: copyVolume()).
    /// Returns the new volume's path.
    Expected<QString> cloneVolume(const QString& source, const QString& target);

    /// Writes `bytes` over volume `name` at `offset` through the storage API
    /// (virStorageVolUpload of that range); the rest of the volume stays as it was.
    Expected<void> writeAt(const QString& name, qint64 offset, QByteArrayView bytes);

    /// Deletes volume `name`; succeeds when it does not exist (nor its pool), fails when the
    /// daemon could not be asked.
    Expected<void> deleteVolume(const QString& name);

    /// Names of the volumes whose names start with `prefix`.
    QStringList volumeNames(const QString& prefix) const;

private:
    StoragePool(virConnectPtr conn) : m_conn(conn) {}
    /// Uploads `file` into a new volume `volume`, calling `sent(bytes)` after each chunk.
    Expected<QString> upload(const QString& volume, const QString& file, const std::function<void(qint64)>& sent);
    Expected<StagedImage> stageOnce(const GuestImage& image, const std::function<void(qint64, qint64)>& report);
    bool hasVolume(const QString& name) const;

    virConnectPtr m_conn;
};

} // namespace sbw
