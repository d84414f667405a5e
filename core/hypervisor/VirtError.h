#pragma once

#include "base/Expected.h"

#include <QString>

namespace sbw {

/// libvirt prints every error to stderr unless told otherwise; this turns that off for the
/// whole process (errors are read with lastVirtErrorMessage() instead). Idempotent.
void silenceLibvirtErrorPrinting();

/// The message of the last libvirt error raised on the calling thread (libvirt keeps errors
/// per thread), or "unknown libvirt error" when there is none.
QString lastVirtErrorMessage();

/// Error whose message is "<what>: <last libvirt error>", of kind InUse when libvirt refused
/// because another client holds the domain's console or channel, else Failed.
Error virtError(const QString& what);

} // namespace sbw
