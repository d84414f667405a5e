#include "GuestSession.h"

#include "ClientKey.h"
#include "Logging.h"

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include <poll.h>
#include <unistd.h>

namespace sbw {
namespace {

using Clock = std::chrono::steady_clock;

/// How long a blocking libssh call may wait for the guest.
constexpr std::chrono::seconds kBlockingTimeout{60};

/// How long a killed command may take to report its end before the session is given up.
constexpr std::chrono::seconds kKillGrace{10};

/// SSH signal names (RFC 4254 §6.10 and OpenSSH) with their Linux x86_64 numbers.
constexpr std::pair<const char*, int> kSignals[] = {
    {"HUP", 1},   {"INT", 2},   {"QUIT", 3},  {"ILL", 4},   {"TRAP", 5},  {"ABRT", 6},
    {"BUS", 7},   {"FPE", 8},   {"KILL", 9},  {"USR1", 10}, {"SEGV", 11}, {"USR2", 12},
    {"PIPE", 13}, {"ALRM", 14}, {"TERM", 15}, {"STKFLT", 16}, {"CHLD", 17}, {"CONT", 18},
    {"STOP", 19}, {"TSTP", 20}, {"TTIN", 21}, {"TTOU", 22}, {"URG", 23}, {"XCPU", 24},
    {"XFSZ", 25}, {"VTALRM", 26}, {"PROF", 27}, {"WINCH", 28}, {"IO", 29}, {"PWR", 30},
    {"SYS", 31},
};

/// Per-exec state shared with libssh's channel callbacks.
struct ChannelState
{
    const ExecRequest* request = nullptr;
    ExecStatus status;
    bool closed = false;
};

int onData(ssh_session, ssh_channel, void* data, uint32_t len, int isStderr, void* userdata)
{
    auto* state = static_cast<ChannelState*>(userdata);
    const QByteArrayView bytes(static_cast<const char*>(data), qsizetype(len));
    const auto& sink = isStderr ? state->request->onStderr : state->request->onStdout;
    if (sink)
        sink(bytes);
    return int(len);
}

void onExitStatus(ssh_session, ssh_channel, int exitStatus, void* userdata)
{
    static_cast<ChannelState*>(userdata)->status.exitStatus = exitStatus;
}

void onExitSignal(ssh_session, ssh_channel, const char* signal, int, const char*, const char*,
                  void* userdata)
{
    static_cast<ChannelState*>(userdata)->status.signal = signalNumber(QByteArray(signal));
}

void onClose(ssh_session, ssh_channel, void* userdata)
{
    static_cast<ChannelState*>(userdata)->closed = true;
}

QString sshError(ssh_session session)
{
    return QString::fromUtf8(ssh_get_error(session));
}

struct SessionGuard
{
    ssh_session session;
    ~SessionGuard()
    {
        if (session)
            ssh_free(session);
    }
};

} // namespace

int signalNumber(const QByteArray& sshName)
{
    for (const auto& [name, number] : kSignals) {
        if (sshName == name)
            return number;
    }
    return 0;
}

Expected<std::unique_ptr<GuestSession>> GuestSession::connect(int fd, const ClientKey& key,
                                                              const QString& expectedHostKey,
                                                              Clock::time_point deadline,
                                                              const std::atomic_bool* cancel)
{
    SessionGuard guard{ssh_new()};
    ssh_session session = guard.session;
    if (!session) {
        ::close(fd);
        return makeError(QStringLiteral("cannot create an SSH session"));
    }
    int verbosity = SSH_LOG_NOLOG;
    int processConfig = 0;
    ssh_options_set(session, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
    ssh_options_set(session, SSH_OPTIONS_PROCESS_CONFIG, &processConfig);
    ssh_options_set(session, SSH_OPTIONS_HOST, "sandbox");
    ssh_options_set(session, SSH_OPTIONS_USER, "root");
    socket_t socketFd = fd;
    ssh_options_set(session, SSH_OPTIONS_FD, &socketFd); // libssh closes it from now on

    // The guest's sshd writes its banner only once it runs, so waiting for the handshake is
    // waiting for the guest to be ready.
    ssh_set_blocking(session, 0);
    int rc = SSH_AGAIN;
    while ((rc = ssh_connect(session)) == SSH_AGAIN) {
        if (cancel && *cancel)
            return makeError(QStringLiteral("cancelled while waiting for the guest"));
        if (Clock::now() >= deadline)
            return makeError(QStringLiteral("the guest did not answer on its SSH channel in time"));
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, 100);
    }
    if (rc != SSH_OK)
        return makeError(QStringLiteral("SSH handshake with the guest failed: %1").arg(sshError(session)));
    ssh_set_blocking(session, 1);
    // Blocking calls (channel open, exec request, stdin writes) give up instead of hanging
    // when the guest stops answering.
    long blockingTimeoutSecs = kBlockingTimeout.count();
    ssh_options_set(session, SSH_OPTIONS_TIMEOUT, &blockingTimeoutSecs);

    ssh_key serverKey = nullptr;
    if (ssh_get_server_publickey(session, &serverKey) != SSH_OK)
        return makeError(QStringLiteral("the guest sent no host key"));
    char* serverBase64 = nullptr;
    ssh_pki_export_pubkey_base64(serverKey, &serverBase64);
    const QString seen = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(serverKey)))
                         + QLatin1Char(' ') + QString::fromLatin1(serverBase64);
    ssh_string_free_char(serverBase64);
    ssh_key_free(serverKey);
    if (seen != expectedHostKey.section(QLatin1Char(' '), 0, 1))
        return makeError(QStringLiteral("the guest's SSH host key (…%1) is not the one in the "
                                        "image's manifest (…%2)")
                             .arg(seen.right(12), expectedHostKey.section(QLatin1Char(' '), 1, 1).right(12)));

    if (ssh_userauth_publickey(session, nullptr, key.privateKey()) != SSH_AUTH_SUCCESS)
        return makeError(QStringLiteral("the guest refused the client key: %1").arg(sshError(session)));
    qCInfo(lcChannel) << "SSH session established";
    guard.session = nullptr;
    return std::unique_ptr<GuestSession>(new GuestSession(session));
}

GuestSession::~GuestSession()
{
    ssh_disconnect(m_session);
    ssh_free(m_session);
}

Expected<ExecStatus> GuestSession::exec(const ExecRequest& request)
{
    std::lock_guard lock(m_mutex);
    return execLocked(request);
}

Expected<ExecStatus> GuestSession::execLocked(const ExecRequest& request)
{
    const QByteArray pidFile = "/run/sbw-exec-" + QByteArray::number(m_nextExecId++) + ".pid";
    const QByteArray command = "echo $$ >" + pidFile + "; " + request.command;

    ssh_channel channel = ssh_channel_new(m_session);
    if (!channel)
        return makeError(QStringLiteral("cannot open an SSH channel: %1").arg(sshError(m_session)));
    ChannelState state;
    state.request = &request;
    ssh_channel_callbacks_struct callbacks{};
    callbacks.userdata = &state;
    callbacks.channel_data_function = onData;
    callbacks.channel_exit_status_function = onExitStatus;
    callbacks.channel_exit_signal_function = onExitSignal;
    callbacks.channel_close_function = onClose;
    ssh_callbacks_init(&callbacks);
    const auto freeChannel = qScopeGuard([&] {
        ssh_remove_channel_callbacks(channel, &callbacks);
        ssh_channel_free(channel);
    });

    if (ssh_channel_open_session(channel) != SSH_OK)
        return makeError(QStringLiteral("cannot open an SSH channel: %1").arg(sshError(m_session)));
    ssh_set_channel_callbacks(channel, &callbacks);
    if (ssh_channel_request_exec(channel, command.constData()) != SSH_OK)
        return makeError(QStringLiteral("the guest refused to run the command: %1").arg(sshError(m_session)));
    if (!request.stdinData.isEmpty()
        && ssh_channel_write(channel, request.stdinData.constData(), uint32_t(request.stdinData.size()))
               == SSH_ERROR)
        return makeError(QStringLiteral("writing the command's input failed: %1").arg(sshError(m_session)));
    ssh_channel_send_eof(channel);

    const auto started = Clock::now();
    ssh_event event = ssh_event_new();
    ssh_event_add_session(event, m_session);
    const auto freeEvent = qScopeGuard([&] {
        ssh_event_remove_session(event, m_session);
        ssh_event_free(event);
    });
    std::optional<Clock::time_point> killedAt;
    while (!state.closed) {
        if (ssh_event_dopoll(event, 100) == SSH_ERROR || !ssh_is_connected(m_session))
            return makeError(QStringLiteral("the connection to the guest broke: %1").arg(sshError(m_session)));
        if (killedAt) {
            if (Clock::now() - *killedAt > kKillGrace)
                return makeError(QStringLiteral("the guest did not end a killed command"));
            continue;
        }
        if (request.timeout.count() > 0 && Clock::now() - started >= request.timeout)
            state.status.timedOut = true;
        else if (request.cancel && *request.cancel)
            state.status.cancelled = true;
        else
            continue;
        killedAt = Clock::now();
        ssh_event_remove_session(event, m_session); // the kill command polls the session itself
        killSession(pidFile);
        ssh_event_add_session(event, m_session);
    }
    ssh_channel_close(channel);
    return state.status;
}

void GuestSession::killSession(const QByteArray& pidFile)
{
    ExecRequest kill;
    // Every process of the command's session (sshd made the shell a session leader).
    kill.command = "pkill -KILL -s \"$(cat " + pidFile + ")\"; rm -f " + pidFile;
    kill.timeout = std::chrono::seconds(10);
    if (auto status = execLocked(kill); !status)
        qCWarning(lcChannel) << "cannot kill a timed-out command:" << status.error().message;
}

} // namespace sbw
