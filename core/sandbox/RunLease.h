#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <chrono>

typedef struct _virConnect* virConnectPtr;
typedef struct _virDomain* virDomainPtr;

namespace sbw {

/// Namespace of a run domain's lease in its live metadata: <lease until="ISO 8601 UTC"/>.
inline constexpr char kRunLeaseNamespace[] = "https://sandbox-workbench.dev/xmlns/lease/1";

/// A lease on a run's domain that libvirt would not end with this process: a remote host's
/// restored run (virDomainRestoreFlags has no AUTODESTROY), which a killed workbench or a lost
/// connection would leave running. While a RunLease lives, one thread of the process writes
/// "held until now + length" into the domain's live metadata every third of the length. Once
/// its holder is gone the lease runs out, and sweepExpiredRunLeases(), which runs before every
/// new sandbox on that host, destroys the domain. The length is 5 minutes
/// ($SBW_RUN_LEASE_SECONDS overrides it, for tests). The time is the writer's clock and is read
/// by the sweeper's, so the hosts' clocks must agree to well within the length.
class RunLease
{
public:
    /// Writes the lease once before it returns (a definition may carry the first term already:
    /// CloneIdentity::leaseUntil), then hands it to the renewing thread.
    explicit RunLease(virDomainPtr domain);
    ~RunLease();
    RunLease(const RunLease&) = delete;
    RunLease& operator=(const RunLease&) = delete;

    /// The lease's length.
    static std::chrono::seconds length();
    /// Now plus the length: what a lease written now says.
    static QDateTime untilFromNow();

private:
    virDomainPtr m_domain; // its own reference
};

/// When `domain`'s lease runs out; invalid when it has none (an AUTODESTROY domain).
QDateTime runLeaseUntil(virDomainPtr domain);

/// Destroys the active domains of `conn` named `prefix`… whose lease ran out before now;
/// returns their names (their volumes are the caller's to delete).
QStringList sweepExpiredRunLeases(virConnectPtr conn, const QString& prefix);

} // namespace sbw
