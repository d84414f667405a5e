#include "network/GuestEgress.h"

#include <mutex>
#include <unistd.h>

namespace sbw::guest_egress {
namespace {

std::mutex g_mutex;
Acceptor g_acceptor;

} // namespace

void setAcceptor(Acceptor acceptor)
{
    std::lock_guard lock(g_mutex);
    g_acceptor = std::move(acceptor);
}

bool hasAcceptor()
{
    std::lock_guard lock(g_mutex);
    return bool(g_acceptor);
}

void accept(Connection connection)
{
    std::lock_guard lock(g_mutex);
    if (g_acceptor)
        g_acceptor(std::move(connection));
    else
        ::close(connection.fd);
}

QByteArray exportLines()
{
    const QByteArray proxy = "http://127.0.0.1:" + QByteArray::number(kGuestPort);
    QByteArray lines;
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        lines += "export " + QByteArray(name) + '=' + proxy + '\n';
    lines += "export NO_PROXY=localhost,127.0.0.1 no_proxy=localhost,127.0.0.1\n";
    return lines;
}

} // namespace sbw::guest_egress
