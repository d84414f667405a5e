#include "guest/ShellChannel.h"

#include "guest/SshSessionThread.h"

#include <algorithm>
#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <mutex>

namespace sbw {

/// State shared by the ShellChannel (its thread) and its Job (the I/O thread).
struct ShellChannel::Shared
{
    std::mutex mutex;
    ShellChannel* owner = nullptr; ///< null once the ShellChannel is destroyed

    // Towards the guest.
    QByteArray input;
    std::optional<std::pair<int, int>> size; ///< a resize not yet sent
    bool closeRequested = false;

    // Towards the owner, delivered by one queued call at a time.
    bool openedEvent = false;
    QByteArray output;
    QString error;
    bool closedEvent = false;
    std::optional<int> exitStatus;
    bool deliveryPosted = false;

    /// Schedules ShellChannel::deliver() in the owner's thread. Call with the mutex held.
    void post()
    {
        if (!owner || deliveryPosted)
            return;
        deliveryPosted = true;
        QMetaObject::invokeMethod(
            owner, [o = owner] { o->deliver(); }, Qt::QueuedConnection);
    }
};

/// The channel on the I/O thread: open, pty-req, shell, then input, resizes and output until
/// either side closes it.
class ShellChannel::Job : public SshSessionThread::Job
{
public:
    Job(std::shared_ptr<Shared> shared, int cols, int rows, QByteArray term, QByteArray command)
        : m_shared(std::move(shared)), m_cols(cols), m_rows(rows), m_term(std::move(term)),
          m_command(std::move(command))
    {
        m_callbacks.userdata = this;
        m_callbacks.channel_data_function = onData;
        m_callbacks.channel_exit_status_function = onExitStatus;
        m_callbacks.channel_close_function = onClose;
        ssh_callbacks_init(&m_callbacks);
    }

    Step step(ssh_session session) override
    {
        bool closeRequested = false;
        {
            std::lock_guard lock(m_shared->mutex);
            closeRequested = m_shared->closeRequested;
        }
        if (closeRequested)
            return finish({});
        switch (m_phase) {
        case Phase::Open:
            if (!m_channel && !(m_channel = ssh_channel_new(session)))
                return finish(QStringLiteral("cannot open an SSH channel: %1")
                                  .arg(QString::fromUtf8(ssh_get_error(session))));
            if (const int rc = ssh_channel_open_session(m_channel); rc == SSH_AGAIN)
                return Step::Wait;
            else if (rc != SSH_OK)
                return finish(QStringLiteral("cannot open an SSH channel: %1")
                                  .arg(QString::fromUtf8(ssh_get_error(session))));
            ssh_set_channel_callbacks(m_channel, &m_callbacks);
            m_phase = Phase::Pty;
            [[fallthrough]];
        case Phase::Pty:
            if (const int rc =
                    ssh_channel_request_pty_size(m_channel, m_term.constData(), m_cols, m_rows);
                rc == SSH_AGAIN)
                return Step::Wait;
            else if (rc != SSH_OK)
                return finish(QStringLiteral("the guest refused a pseudo-terminal: %1")
                                  .arg(QString::fromUtf8(ssh_get_error(session))));
            m_phase = Phase::Shell;
            [[fallthrough]];
        case Phase::Shell:
            if (const int rc = m_command.isEmpty()
                                   ? ssh_channel_request_shell(m_channel)
                                   : ssh_channel_request_exec(m_channel, m_command.constData());
                rc == SSH_AGAIN)
                return Step::Wait;
            else if (rc != SSH_OK)
                return finish(QStringLiteral("the guest refused to start a shell: %1")
                                  .arg(QString::fromUtf8(ssh_get_error(session))));
            m_phase = Phase::Running;
            {
                std::lock_guard lock(m_shared->mutex);
                m_shared->openedEvent = true;
                m_shared->post();
            }
            [[fallthrough]];
        case Phase::Running:
            return run(session);
        }
        return Step::Wait;
    }

    void fail(const QString& reason) override { finish(reason); }

private:
    enum class Phase
    {
        Open,
        Pty,
        Shell,
        Running
    };

    Step run(ssh_session session)
    {
        std::optional<std::pair<int, int>> size;
        {
            std::lock_guard lock(m_shared->mutex);
            m_outbox.append(m_shared->input);
            m_shared->input.clear();
            size = std::exchange(m_shared->size, std::nullopt);
        }
        if (size && size != std::pair(m_cols, m_rows)) {
            std::tie(m_cols, m_rows) = *size;
            ssh_channel_change_pty_size(m_channel, m_cols, m_rows);
        }
        while (!m_outbox.isEmpty() && !m_remoteClosed) {
            const qsizetype chunk =
                std::min<qsizetype>(m_outbox.size(), ssh_channel_window_size(m_channel));
            const int sent =
                chunk > 0 ? ssh_channel_write(m_channel, m_outbox.constData(), uint32_t(chunk)) : 0;
            if (sent == SSH_ERROR)
                return finish(QStringLiteral("writing to the shell failed: %1")
                                  .arg(QString::fromUtf8(ssh_get_error(session))));
            if (sent <= 0)
                break;
            m_outbox.remove(0, sent);
        }
        if (m_remoteClosed)
            return finish({}, m_exitStatus);
        return Step::Wait;
    }

    Step finish(const QString& error, std::optional<int> exitStatus = std::nullopt)
    {
        if (m_channel) {
            ssh_remove_channel_callbacks(m_channel, &m_callbacks);
            if (!m_remoteClosed)
                ssh_channel_close(m_channel);
            ssh_channel_free(m_channel);
            m_channel = nullptr;
        }
        std::lock_guard lock(m_shared->mutex);
        m_shared->error = error;
        m_shared->closedEvent = true;
        m_shared->exitStatus = exitStatus;
        m_shared->post();
        return Step::Done;
    }

    static int onData(ssh_session, ssh_channel, void* data, uint32_t len, int, void* userdata)
    {
        auto& shared = *static_cast<Job*>(userdata)->m_shared;
        std::lock_guard lock(shared.mutex);
        shared.output.append(static_cast<const char*>(data), qsizetype(len));
        shared.post();
        return int(len);
    }

    static void onExitStatus(ssh_session, ssh_channel, int exitStatus, void* userdata)
    {
        static_cast<Job*>(userdata)->m_exitStatus = exitStatus;
    }

    static void onClose(ssh_session, ssh_channel, void* userdata)
    {
        static_cast<Job*>(userdata)->m_remoteClosed = true;
    }

    std::shared_ptr<Shared> m_shared;
    int m_cols;
    int m_rows;
    QByteArray m_term;
    QByteArray m_command; ///< empty: the login shell
    ssh_channel_callbacks_struct m_callbacks{};
    ssh_channel m_channel = nullptr;
    Phase m_phase = Phase::Open;
    QByteArray m_outbox; ///< input taken from Shared, not yet within the guest's window
    std::optional<int> m_exitStatus;
    bool m_remoteClosed = false;
};

ShellChannel::ShellChannel(std::shared_ptr<SshSessionThread> loop, int cols, int rows,
                           const QByteArray& term, const QByteArray& command)
    : m_loop(std::move(loop)), m_shared(std::make_shared<Shared>())
{
    m_shared->owner = this;
    m_loop->add(
        std::make_shared<Job>(m_shared, std::max(cols, 1), std::max(rows, 1), term, command));
}

ShellChannel::~ShellChannel()
{
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->owner = nullptr;
        m_shared->closeRequested = true;
    }
    m_loop->wake();
}

void ShellChannel::write(const QByteArray& bytes)
{
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->input.append(bytes);
    }
    m_loop->wake();
}

void ShellChannel::resize(int cols, int rows)
{
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->size = std::pair(std::max(cols, 1), std::max(rows, 1));
    }
    m_loop->wake();
}

void ShellChannel::close()
{
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->closeRequested = true;
    }
    m_loop->wake();
}

bool ShellChannel::isOpen() const
{
    return m_open && !m_closed;
}

void ShellChannel::deliver()
{
    bool openedEvent = false;
    bool closedEvent = false;
    QByteArray bytes;
    QString error;
    std::optional<int> exitStatus;
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->deliveryPosted = false;
        openedEvent = std::exchange(m_shared->openedEvent, false);
        bytes = std::exchange(m_shared->output, {});
        closedEvent = std::exchange(m_shared->closedEvent, false);
        error = m_shared->error;
        exitStatus = m_shared->exitStatus;
    }
    if (m_closed)
        return;
    if (openedEvent) {
        m_open = true;
        Q_EMIT opened();
    }
    if (!bytes.isEmpty())
        Q_EMIT output(bytes);
    if (closedEvent) {
        m_closed = true;
        if (!error.isEmpty())
            Q_EMIT errorOccurred(error);
        Q_EMIT closed(exitStatus);
    }
}

} // namespace sbw
