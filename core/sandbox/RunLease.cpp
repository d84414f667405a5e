#include "sandbox/RunLease.h"

#include "base/Logging.h"
#include "hypervisor/VirtError.h"

#include <QXmlStreamReader>

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

namespace sbw {
namespace {

constexpr std::chrono::seconds kDefaultLength{300};
constexpr char kLeaseKey[] = "sbwlease";

void writeLease(virDomainPtr domain)
{
    const QByteArray xml =
        QStringLiteral("<lease until=\"%1\"/>").arg(RunLease::untilFromNow().toString(Qt::ISODate)).toUtf8();
    if (virDomainSetMetadata(domain, VIR_DOMAIN_METADATA_ELEMENT, xml.constData(), kLeaseKey, kRunLeaseNamespace,
                             VIR_DOMAIN_AFFECT_LIVE) < 0)
        qCWarning(lcRun) << "cannot renew the lease of domain" << virDomainGetName(domain) << lastVirtErrorMessage();
}

/// The one thread of the process that renews every lease held.
class LeaseRenewer
{
public:
    static LeaseRenewer& instance()
    {
        static LeaseRenewer renewer;
        return renewer;
    }

    void add(virDomainPtr domain)
    {
        std::lock_guard lock(m_mutex);
        m_domains.insert(domain);
        if (m_running)
            return;
        if (m_thread.joinable())
            m_thread.join(); // it has left run() (m_running is set false last, under the lock)
        m_running = true;
        m_thread = std::thread(&LeaseRenewer::run, this);
    }

    void remove(virDomainPtr domain)
    {
        {
            std::lock_guard lock(m_mutex);
            m_domains.erase(domain);
        }
        m_wake.notify_all();
    }

    ~LeaseRenewer()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    LeaseRenewer() = default;

    /// Renews every third of the length until no lease is held.
    void run()
    {
        std::unique_lock lock(m_mutex);
        while (!m_wake.wait_for(lock, RunLease::length() / 3, [this] { return m_stop || m_domains.empty(); })) {
            std::vector<virDomainPtr> domains;
            for (virDomainPtr domain : m_domains) {
                virDomainRef(domain); // a holder may let go while it is renewed
                domains.push_back(domain);
            }
            lock.unlock();
            for (virDomainPtr domain : domains) {
                writeLease(domain);
                virDomainFree(domain);
            }
            lock.lock();
        }
        m_running = false;
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::set<virDomainPtr> m_domains;
    bool m_running = false;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace

RunLease::RunLease(virDomainPtr domain) : m_domain(domain)
{
    virDomainRef(m_domain);
    writeLease(m_domain);
    LeaseRenewer::instance().add(m_domain);
}

RunLease::~RunLease()
{
    LeaseRenewer::instance().remove(m_domain);
    virDomainFree(m_domain);
}

std::chrono::seconds RunLease::length()
{
    bool ok = false;
    const int fromEnvironment = qEnvironmentVariableIntValue("SBW_RUN_LEASE_SECONDS", &ok);
    return ok && fromEnvironment > 0 ? std::chrono::seconds(fromEnvironment) : kDefaultLength;
}

QDateTime RunLease::untilFromNow() { return QDateTime::currentDateTimeUtc().addSecs(length().count()); }

QDateTime runLeaseUntil(virDomainPtr domain)
{
    char* xml = virDomainGetMetadata(domain, VIR_DOMAIN_METADATA_ELEMENT, kRunLeaseNamespace, VIR_DOMAIN_AFFECT_LIVE);
    if (!xml) {
        virResetLastError(); // no lease
        return {};
    }
    QXmlStreamReader reader{QByteArray(xml)};
    free(xml);
    if (!reader.readNextStartElement() || reader.name() != QLatin1String("lease"))
        return {};
    QDateTime until = QDateTime::fromString(reader.attributes().value(QLatin1String("until")).toString(), Qt::ISODate);
    return until.isValid() ? until.toUTC() : QDateTime();
}

QStringList sweepExpiredRunLeases(virConnectPtr conn, const QString& prefix)
{
    virDomainPtr* domains = nullptr;
    const int count = virConnectListAllDomains(conn, &domains, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
    if (count < 0) {
        qCWarning(lcRun) << "cannot list domains to sweep run leases:" << lastVirtErrorMessage();
        return {};
    }
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QStringList swept;
    for (int i = 0; i < count; ++i) {
        const QString name = QString::fromUtf8(virDomainGetName(domains[i]));
        const QDateTime until = name.startsWith(prefix) ? runLeaseUntil(domains[i]) : QDateTime();
        if (until.isValid() && until < now) {
            qCInfo(lcRun) << "destroying run domain" << name << "- its lease ran out at"
                          << until.toString(Qt::ISODate) << "(the workbench that ran it is gone)";
            if (virDomainDestroy(domains[i]) == 0)
                swept << name;
            else
                qCWarning(lcRun) << "cannot destroy domain" << name << lastVirtErrorMessage();
        }
        virDomainFree(domains[i]);
    }
    free(domains);
    return swept;
}

} // namespace sbw
