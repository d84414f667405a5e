#include "VirtError.h"

#include <libvirt/virterror.h>

namespace sbw {

void silenceLibvirtErrorPrinting()
{
    virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
}

QString lastVirtErrorMessage()
{
    const virErrorPtr error = virGetLastError();
    if (!error || !error->message)
        return QStringLiteral("unknown libvirt error");
    return QString::fromUtf8(error->message);
}

Error virtError(const QString& what)
{
    return Error{what + QStringLiteral(": ") + lastVirtErrorMessage()};
}

} // namespace sbw
