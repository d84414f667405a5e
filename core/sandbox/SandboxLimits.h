#pragma once

#include "base/Expected.h"

#include <QString>

#include <optional>

namespace sbw {

struct GuestImage;

/// The disk a sandbox gets: its overlay's virtual size. The guest's root file system fills it:
/// when the overlay is larger than the image, the kernel command line carries `sbw.growfs=1`
/// and the guest's init grows ext4 online (resize2fs) before it reports ready.
struct DiskLimit
{
    qint64 bytes = 0;   ///< virtual size of the overlay
    bool grows = false; ///< larger than the image: the guest must grow its file system

    /// " sbw.growfs=1" when grows, else empty: appended to the kernel command line.
    QString kernelParameter() const;
};

/// The disk for a limit of `diskGiB` GiB over `image`; the image's own size when `diskGiB` is 0.
/// Errors: a negative limit, or one below the image's size ("the disk limit of 2 GiB is below the
/// size of image 'minimal' (4 GiB): use 4 GiB or more").
Expected<DiskLimit> diskLimit(const GuestImage& image, int diskGiB);

/// "65536", "64K", "16M", "1G" (powers of 1024; k, m, g too) as bytes, 0 or more; nullopt for
/// anything else (the CLI's --output-cap).
std::optional<qint64> parseByteSize(const QString& text);

/// Bytes as GiB for people: "4 GiB", "4.5 GiB".
QString gibText(qint64 bytes);

/// vCPUs of an ephemeral run unless the caller chooses: 2, or 1 on a host with one logical CPU.
/// Two because under TCG the guest's idle-time Python warm-up then runs beside the SSH
/// handshake (cold run 0.6-1.7 s shorter on a 2-core host; ARCHITECTURE.md, "Where the time
/// of a cold run goes"). Workspaces keep 1 (WorkspaceSettings).
int defaultRunVcpus();

/// Checks a CPU share (percent of one host core for all vCPUs together, DomainSpec): 0 for
/// none, else 1 to 100 × `vcpus`. Errors say the range.
Expected<void> validateCpuShare(int percent, int vcpus);

} // namespace sbw
