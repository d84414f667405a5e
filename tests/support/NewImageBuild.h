#pragma once

#include "base/Expected.h"
#include "image/GuestImage.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace sbw::test {

/// A build of the shared cache's `minimal` image that no storage pool has seen: its files
/// linked into a cache folder of its own with a new build time in the manifest (so a new
/// GuestImage::buildId), and $XDG_CACHE_HOME pointed there while this object lives. Runs and
/// workspaces made meanwhile stage it into their host's pool first. At its end the build's
/// volumes (and a ready state saved of it) are deleted from the pools of `uris` and
/// $XDG_CACHE_HOME is restored. A ready state saved of it replaced the shared build's (one
/// build of a recipe keeps a state): the next run of the shared build saves its own again.
class NewImageBuild
{
public:
    explicit NewImageBuild(QStringList uris);
    ~NewImageBuild();
    NewImageBuild(const NewImageBuild&) = delete;
    NewImageBuild& operator=(const NewImageBuild&) = delete;

    /// The image as runs load it; an error when the shared image is missing.
    const Expected<GuestImage>& image() const { return m_image; }
    /// The bytes a pool receives: kernel, initramfs and disk.
    qint64 totalBytes() const;

private:
    QTemporaryDir m_cache;
    QByteArray m_sharedCache; ///< $XDG_CACHE_HOME before
    QStringList m_uris;
    Expected<GuestImage> m_image = makeError(QStringLiteral("not made"));
};

} // namespace sbw::test
