#pragma once

#include <QString>

namespace sbw {

/// A ready sandbox saved once (readystate/ReadyStateStore), from which Sandbox::restore() starts
/// new ones: its memory and device state in a save image, and the disk it had then.
struct SavedSandboxState
{
    QString name;        ///< "sbw-state-<build id>-<digest>"; also its volumes' stem
    QString saveVolume;  ///< pool volume of the save image (virDomainSaveFlags)
    qint64 streamOffset = 0; ///< where QEMU's migration stream starts in it (save_image)
    QString overlayPath; ///< the template's overlay as it was at the save; never written again
    QString domainXml;   ///< the saved domain's definition (virDomainSaveImageGetXMLDesc)
    qint64 diskBytes = 0; ///< the disk the guest had (the overlay's virtual size)
};

} // namespace sbw
