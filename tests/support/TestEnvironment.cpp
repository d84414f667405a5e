#include "TestEnvironment.h"

#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"

#include <QTcpServer>

#include <libvirt/libvirt.h>

namespace sbw::test {

QString guestUri() { return defaultConnectionUri(); }

QStringList domainsNamed(const QString& uri, const QString& prefix)
{
    QStringList names;
    HypervisorConnection connection(uri);
    if (!connection.ensureOpen())
        return {QStringLiteral("<cannot connect>")};
    virDomainPtr* domains = nullptr;
    const int count = virConnectListAllDomains(connection.handle(), &domains, 0);
    for (int i = 0; i < count; ++i) {
        const QString name = QString::fromUtf8(virDomainGetName(domains[i]));
        if (name.startsWith(prefix))
            names << name;
        virDomainFree(domains[i]);
    }
    free(domains);
    return names;
}

QStringList runDomains(const QString& uri) { return domainsNamed(uri, QStringLiteral("sbw-run-")); }

quint16 freeLoopbackPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

QStringList volumesNamed(const QString& uri, const QString& prefix)
{
    HypervisorConnection connection(uri);
    if (!connection.ensureOpen())
        return {QStringLiteral("<cannot connect>")};
    auto pool = StoragePool::open(connection.handle(), isSystemUri(uri));
    if (!pool)
        return {QStringLiteral("<no pool>")};
    return pool->volumeNames(prefix);
}

QStringList runOverlays(const QString& uri)
{
    return volumesNamed(uri, QStringLiteral("sbw-run-"));
}

QStringList leftovers(const QString& uri, const QString& prefix)
{
    return domainsNamed(uri, prefix) + volumesNamed(uri, prefix);
}

} // namespace sbw::test
