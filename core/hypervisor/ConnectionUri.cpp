#include "hypervisor/ConnectionUri.h"

#include <QUrl>

#include <unistd.h>

namespace sbw {

QString chooseConnectionUri(const QString& explicitUri, const QString& environmentUri, unsigned uid)
{
    if (!explicitUri.isEmpty())
        return explicitUri;
    if (!environmentUri.isEmpty())
        return environmentUri;
    return uid == 0 ? QStringLiteral("qemu:///system") : QStringLiteral("qemu:///session");
}

QString defaultConnectionUri(const QString& explicitUri)
{
    return chooseConnectionUri(explicitUri, qEnvironmentVariable("LIBVIRT_DEFAULT_URI"), getuid());
}

bool isSystemUri(const QString& uri)
{
    return QUrl(uri).path() == QLatin1String("/system");
}

bool isLocalUri(const QString& uri)
{
    return QUrl(uri).host().isEmpty();
}

QString hostDisplayName(const QString& uri)
{
    return isLocalUri(uri) ? uri : QUrl(uri).host();
}

} // namespace sbw
