#pragma once

#include "approval/Policy.h"

#include <QList>
#include <QObject>
#include <QString>

class QProcess;

namespace sbw::test {

/// Python's http.server on the host's 127.0.0.1, serving a folder: the real server the egress
/// proxy's tests reach. Each server ends with this object, and with the test process even when
/// it crashes (so no orphan holds ctest's output pipe or a port).
class LoopbackHttpServers : public QObject
{
public:
    using QObject::QObject;
    ~LoopbackHttpServers() override;

    /// Starts one serving `folder` on a free port and waits until it accepts connections.
    /// Returns the port; 0 when it did not come up within 20 s.
    quint16 start(const QString& folder);

private:
    QList<QProcess*> m_servers;
};

/// A wheel of package "sbwdemo" 1.0 (module sbwdemo.py with GREETING = "hello from the allowed
/// index"), built with Python's zipfile, and a PEP 503 simple index for it under `root`/simple,
/// for LoopbackHttpServers to serve. False when Python failed.
bool writeSimpleIndex(const QString& root);

/// A network rule of the policy: kinds ["network"], `pattern`, `ports`, `decision`.
PolicyRule networkRule(const QString& pattern, QList<quint16> ports, PolicyDecision decision);

} // namespace sbw::test
