#include "base/TerminationSignals.h"

#include <QSocketNotifier>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace sbw {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
int g_sockets[2] = {-1, -1}; ///< [0] written by the handler, [1] read by the notifier
std::atomic_bool g_requested{false};
std::atomic_int g_count{0};
int g_forceAt = 2;

void onSignal(int number)
{
    const int saved = errno;
    g_requested.store(true);
    if (g_count.fetch_add(1) + 1 >= g_forceAt) {
        ::signal(number, SIG_DFL);
        ::raise(number);
    }
    const char byte = char(number);
    [[maybe_unused]] const ssize_t written = ::write(g_sockets[0], &byte, 1);
    errno = saved;
}

} // namespace

TerminationSignals::TerminationSignals(int forceAt, QObject* parent) : QObject(parent)
{
    g_forceAt = std::max(forceAt, 2);
    g_count = 0;
    g_requested = false;
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g_sockets) != 0)
        return; // no handlers: the signals keep their default action
    m_notifier = new QSocketNotifier(g_sockets[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        char byte = 0;
        if (::read(g_sockets[1], &byte, 1) == 1)
            Q_EMIT received(int(byte), g_count.load());
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int number : kSignals)
        ::sigaction(number, &action, nullptr);
}

TerminationSignals::~TerminationSignals()
{
    if (!m_notifier)
        return;
    for (const int number : kSignals)
        ::signal(number, SIG_DFL);
    delete m_notifier;
    m_notifier = nullptr;
    ::close(g_sockets[0]);
    ::close(g_sockets[1]);
    g_sockets[0] = g_sockets[1] = -1;
}

const std::atomic_bool& TerminationSignals::requested()
{
    return g_requested;
}

} // namespace sbw
