#include "hypervisor/VirtError.h"

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

namespace {

// libvirt refuses a second console or channel stream (virchrdev.c) with the general
// VIR_ERR_OPERATION_FAILED and a sentence naming an existing stream; no code of its own tells
// it apart, so this one translation reads libvirt's text, and callers read ErrorCode::InUse.
ErrorCode lastVirtErrorCode()
{
    const virErrorPtr error = virGetLastError();
    if (error && error->code == VIR_ERR_OPERATION_FAILED && error->message
        && QString::fromUtf8(error->message).contains(QLatin1String("stream exists")))
        return ErrorCode::InUse;
    return ErrorCode::Failed;
}

} // namespace

Error virtError(const QString& what)
{
    return Error{what + QStringLiteral(": ") + lastVirtErrorMessage(), lastVirtErrorCode()};
}

} // namespace sbw
