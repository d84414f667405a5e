#pragma once

#include "LoopbackSshd.h"
#include "TestEnvironment.h"
#include "base/Expected.h"

#include <QString>
#include <QtGlobal>

namespace sbw::test {

/// The libvirt host a guest test's workspaces live on, so that one test body runs on both:
/// this machine's daemon (guestUri()), or with SBW_TEST_REMOTE=1 in the environment (the ctest
/// variants NAME_remote, tests/integration/CMakeLists.txt) the same daemon as a remote host,
/// over qemu+ssh through the test's own LoopbackSshd. Declare it before the connections that use
/// uri(): its sshd ends with it.
class GuestHost
{
public:
    static bool remoteRequested() { return qEnvironmentVariableIntValue("SBW_TEST_REMOTE") != 0; }

    /// The URI to connect to; remote: starts the sshd first. Errors: LoopbackSshd::start()'s.
    Expected<QString> start()
    {
        if (!remoteRequested()) {
            qInfo("the guests' host: %s (local)", qPrintable(guestUri()));
            return guestUri();
        }
        if (auto started = m_sshd.start(); !started)
            return started.error();
        qInfo("the guests' host: %s (remote, over the test's sshd)", qPrintable(m_sshd.uri()));
        return m_sshd.uri();
    }

private:
    LoopbackSshd m_sshd;
};

} // namespace sbw::test
