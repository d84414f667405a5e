#include "guest/GuestSession.h"

#include "base/Logging.h"
#include "guest/ClientKey.h"
#include "guest/DirectTcpip.h"
#include "guest/ReverseForward.h"
#include "guest/SshSessionThread.h"
#include "guest/SftpClient.h"
#include "guest/ShellChannel.h"

#include <QElapsedTimer>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include <future>
#include <poll.h>
#include <unistd.h>

namespace sbw {
namespace {

using Clock = std::chrono::steady_clock;

/// How long a blocking libssh call may wait for the guest.
constexpr std::chrono::seconds kBlockingTimeout{60};

/// How long a killed command may take to report its end before the session is given up.
constexpr std::chrono::seconds kKillGrace{10};
// How long opening a command's channel may take. An open on a healthy session takes about
// 0.1 s under TCG; a request the guest never answers (seen rarely under heavy load: sshd
// authenticated the session and then never saw the channel open) must not hang the caller.
constexpr std::chrono::seconds kChannelSetupTimeout{30};
const QString kChannelSetupTimeoutMessage =
    QStringLiteral("the guest did not answer the request for a command channel within %1 s")
        .arg(kChannelSetupTimeout.count());

/// SSH signal names (RFC 4254 §6.10 and OpenSSH) with their Linux x86_64 numbers.
constexpr std::pair<const char*, int> kSignals[] = {
    {"HUP", 1},   {"INT", 2},   {"QUIT", 3},  {"ILL", 4},   {"TRAP", 5},  {"ABRT", 6},
    {"BUS", 7},   {"FPE", 8},   {"KILL", 9},  {"USR1", 10}, {"SEGV", 11}, {"USR2", 12},
    {"PIPE", 13}, {"ALRM", 14}, {"TERM", 15}, {"STKFLT", 16}, {"CHLD", 17}, {"CONT", 18},
    {"STOP", 19}, {"TSTP", 20}, {"TTIN", 21}, {"TTOU", 22}, {"URG", 23}, {"XCPU", 24},
    {"XFSZ", 25}, {"VTALRM", 26}, {"PROF", 27}, {"WINCH", 28}, {"IO", 29}, {"PWR", 30},
    {"SYS", 31},
};

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

/// One command on its own channel, stepped by the session's I/O thread: open, exec request,
/// stdin within the peer's window, EOF, then output until the channel closes.
class ExecJob : public SshSessionThread::Job
{
public:
    ExecJob(ExecRequest request, QByteArray pidFile, std::function<void(const QByteArray&)> kill,
            std::function<void(Expected<ExecStatus>)> done)
        : m_request(std::move(request)), m_pidFile(std::move(pidFile)), m_kill(std::move(kill)),
          m_done(std::move(done))
    {
        m_command = "echo $$ >" + m_pidFile + "; " + m_request.command;
        m_callbacks.userdata = this;
        m_callbacks.channel_data_function = onData;
        m_callbacks.channel_exit_status_function = onExitStatus;
        m_callbacks.channel_exit_signal_function = onExitSignal;
        m_callbacks.channel_close_function = onClose;
        ssh_callbacks_init(&m_callbacks);
    }

    Step step(ssh_session session) override
    {
        switch (m_phase) {
        case Phase::Open:
            if (!m_channel && !(m_channel = ssh_channel_new(session)))
                return finish(makeError(QStringLiteral("cannot open an SSH channel: %1").arg(sshError(session))));
            if (const int rc = ssh_channel_open_session(m_channel); rc == SSH_AGAIN)
                return checkSetup();
            else if (rc != SSH_OK)
                return finish(makeError(QStringLiteral("cannot open an SSH channel: %1").arg(sshError(session))));
            ssh_set_channel_callbacks(m_channel, &m_callbacks);
            m_phase = Phase::Request;
            [[fallthrough]];
        case Phase::Request:
            if (const int rc = ssh_channel_request_exec(m_channel, m_command.constData()); rc == SSH_AGAIN)
                return checkSetup();
            else if (rc != SSH_OK)
                return finish(makeError(QStringLiteral("the guest refused to run the command: %1").arg(sshError(session))));
            m_started = Clock::now();
            m_phase = Phase::Input;
            [[fallthrough]];
        case Phase::Input:
            while (m_written < m_request.stdinData.size() && !m_closed && !m_killedAt) {
                const qsizetype chunk = std::min<qsizetype>(m_request.stdinData.size() - m_written,
                                                            ssh_channel_window_size(m_channel));
                const int sent = chunk > 0 ? ssh_channel_write(m_channel, m_request.stdinData.constData() + m_written,
                                                               uint32_t(chunk))
                                           : 0;
                if (sent == SSH_ERROR)
                    return finish(makeError(QStringLiteral("writing the command's input failed: %1").arg(sshError(session))));
                if (sent <= 0)
                    return checkDeadline();
                m_written += sent;
            }
            ssh_channel_send_eof(m_channel);
            m_phase = Phase::Running;
            [[fallthrough]];
        case Phase::Running:
            if (m_closed) {
                ssh_channel_close(m_channel);
                return finish(m_status);
            }
            return checkDeadline();
        }
        return Step::Wait;
    }

    void fail(const QString& reason) override { finish(makeError(reason)); }

private:
    enum class Phase { Open, Request, Input, Running };

    /// While the channel opens: gives up after kChannelSetupTimeout, or at once when cancelled
    /// (nothing runs in the guest yet).
    Step checkSetup()
    {
        if (m_request.cancel.requested()) {
            m_status.cancelled = true;
            return finish(m_status);
        }
        if (Clock::now() - m_created >= kChannelSetupTimeout)
            return finish(makeError(kChannelSetupTimeoutMessage, ErrorCode::Unanswered));
        return Step::Wait;
    }

    /// Kills the command's session once its timeout expired or it was cancelled, and gives up
    /// when the guest does not report its end after that.
    Step checkDeadline()
    {
        if (m_killedAt) {
            if (Clock::now() - *m_killedAt > kKillGrace)
                return finish(makeError(QStringLiteral("the guest did not end a killed command")));
            return Step::Wait;
        }
        if (m_request.timeout.count() > 0 && Clock::now() - m_started >= m_request.timeout)
            m_status.timedOut = true;
        else if (m_request.cancel.requested())
            m_status.cancelled = true;
        else
            return Step::Wait;
        m_killedAt = Clock::now();
        m_kill(m_pidFile);
        return Step::Wait;
    }

    Step finish(Expected<ExecStatus> result)
    {
        if (m_channel) {
            ssh_remove_channel_callbacks(m_channel, &m_callbacks);
            ssh_channel_free(m_channel);
            m_channel = nullptr;
        }
        if (m_done)
            std::exchange(m_done, nullptr)(std::move(result));
        return Step::Done;
    }

    static int onData(ssh_session, ssh_channel, void* data, uint32_t len, int isStderr, void* userdata)
    {
        auto* job = static_cast<ExecJob*>(userdata);
        const QByteArrayView bytes(static_cast<const char*>(data), qsizetype(len));
        const auto& sink = isStderr ? job->m_request.onStderr : job->m_request.onStdout;
        if (sink)
            sink(bytes);
        return int(len);
    }

    static void onExitStatus(ssh_session, ssh_channel, int exitStatus, void* userdata)
    {
        static_cast<ExecJob*>(userdata)->m_status.exitStatus = exitStatus;
    }

    static void onExitSignal(ssh_session, ssh_channel, const char* signal, int, const char*,
                             const char*, void* userdata)
    {
        static_cast<ExecJob*>(userdata)->m_status.signal = signalNumber(QByteArray(signal));
    }

    static void onClose(ssh_session, ssh_channel, void* userdata)
    {
        static_cast<ExecJob*>(userdata)->m_closed = true;
    }

    ExecRequest m_request;
    QByteArray m_pidFile;
    QByteArray m_command;
    std::function<void(const QByteArray&)> m_kill;
    std::function<void(Expected<ExecStatus>)> m_done;
    ssh_channel_callbacks_struct m_callbacks{};
    ssh_channel m_channel = nullptr;
    Phase m_phase = Phase::Open;
    qsizetype m_written = 0;
    const Clock::time_point m_created = Clock::now();
    Clock::time_point m_started;
    std::optional<Clock::time_point> m_killedAt;
    ExecStatus m_status;
    bool m_closed = false;
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
                                                              CancelFlags cancel)
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
    QElapsedTimer phases;
    phases.start();
    qint64 bannerMs = -1;
    int rc = SSH_AGAIN;
    while ((rc = ssh_connect(session)) == SSH_AGAIN) {
        if (bannerMs < 0 && ssh_get_serverbanner(session))
            bannerMs = phases.elapsed();
        if (cancel.requested())
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

    const qint64 keyExchangeMs = phases.elapsed();
    if (ssh_userauth_publickey(session, nullptr, key.privateKey()) != SSH_AUTH_SUCCESS)
        return makeError(QStringLiteral("the guest refused the client key: %1").arg(sshError(session)));
    qCInfo(lcChannel) << "SSH session established";
    qCDebug(lcChannel) << "SSH connect phases (ms since the channel opened): banner" << bannerMs
                       << "key exchange done" << keyExchangeMs << "logged in" << phases.elapsed();
    guard.session = nullptr;
    return std::unique_ptr<GuestSession>(new GuestSession(std::make_shared<SshSessionThread>(session)));
}

GuestSession::GuestSession(std::shared_ptr<SshSessionThread> loop) : m_loop(std::move(loop)) {}

GuestSession::~GuestSession()
{
    // Shells and SFTP clients may outlive the session object; they see it end here.
    close();
}

void GuestSession::close()
{
    m_loop->stop();
}

Expected<ExecStatus> GuestSession::exec(const ExecRequest& request)
{
    Q_ASSERT(!m_loop->onLoopThread());
    std::promise<Expected<ExecStatus>> result;
    startExec(request, [&result](Expected<ExecStatus> status) { result.set_value(std::move(status)); });
    return result.get_future().get();
}

void GuestSession::startExec(ExecRequest request, std::function<void(Expected<ExecStatus>)> done)
{
    const QByteArray pidFile = "/run/sbw-exec-" + QByteArray::number(m_nextExecId++) + ".pid";
    // On timeout or cancel: every process of the command's session (sshd made the shell a
    // session leader), on a second channel.
    auto kill = [this](const QByteArray& pidFile) {
        ExecRequest kill;
        kill.command = "pkill -KILL -s \"$(cat " + pidFile + ")\"; rm -f " + pidFile;
        kill.timeout = std::chrono::seconds(10);
        startExec(kill, [](const Expected<ExecStatus>& status) {
            if (!status)
                qCWarning(lcChannel) << "cannot kill a command that timed out or was cancelled:"
                                      << status.error().message;
        });
    };
    m_loop->add(std::make_shared<ExecJob>(std::move(request), pidFile, std::move(kill), std::move(done)));
}

std::unique_ptr<ShellChannel> GuestSession::openShell(int cols, int rows, const QByteArray& term,
                                                      const QByteArray& command)
{
    return std::unique_ptr<ShellChannel>(new ShellChannel(m_loop, cols, rows, term, command));
}

bool GuestSession::isOpen() const
{
    return !m_loop->hasEnded();
}

Expected<std::unique_ptr<SftpClient>> GuestSession::openSftp()
{
    Q_ASSERT(!m_loop->onLoopThread());
    return SftpClient::open(m_loop);
}

Expected<std::unique_ptr<ReverseForward>>
GuestSession::listenForward(quint16 port, std::function<void(int fd, quint16 sourcePort)> accept)
{
    Q_ASSERT(!m_loop->onLoopThread());
    return ReverseForward::listen(m_loop, port, std::move(accept));
}

Expected<int> GuestSession::connectForward(quint16 port)
{
    Q_ASSERT(!m_loop->onLoopThread());
    return openDirectTcpip(m_loop, port);
}

} // namespace sbw
