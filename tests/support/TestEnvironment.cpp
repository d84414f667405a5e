#include "TestEnvironment.h"

#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"

#include <libvirt/libvirt.h>

namespace sbw::test {

QString guestUri() { return defaultConnectionUri(); }

QStringList runDomains(const QString& uri)
{
    QStringList names;
    HypervisorConnection connection(uri);
    if (!connection.ensureOpen())
        return {QStringLiteral("<cannot connect>")};
    virDomainPtr* domains = nullptr;
    const int count = virConnectListAllDomains(connection.handle(), &domains, 0);
    for (int i = 0; i < count; ++i) {
        const QString name = QString::fromUtf8(virDomainGetName(domains[i]));
        if (name.startsWith(QLatin1String("sbw-run-")))
            names << name;
        virDomainFree(domains[i]);
    }
    free(domains);
    return names;
}

QStringList runOverlays(const QString& uri)
{
    HypervisorConnection connection(uri);
    if (!connection.ensureOpen())
        return {QStringLiteral("<cannot connect>")};
    auto pool = StoragePool::open(connection.handle(), isSystemUri(uri));
    if (!pool)
        return {QStringLiteral("<no pool>")};
    return pool->volumeNames(QStringLiteral("sbw-run-"));
}

} // namespace sbw::test
