#include "run/RunGuestTab.h"

#include "guest/GuestSession.h"

#include <QLabel>
#include <QVBoxLayout>

#include <mutex>

namespace sbw {

struct RunGuestTab::Live
{
    std::mutex mutex;
    std::shared_ptr<GuestSession> session; ///< null once the run ended
};

RunGuestTab::RunGuestTab(Factory factory, const QString& what, AfterEnd afterEnd, QWidget* parent)
    : QWidget(parent), m_factory(std::move(factory)), m_what(what), m_afterEnd(afterEnd),
      m_notice(new QLabel(this))
{
    m_notice->setObjectName(QStringLiteral("runSandboxNotice"));
    m_notice->setTextFormat(Qt::PlainText);
    m_notice->setWordWrap(true);
    m_notice->setMargin(6);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_notice);
    layout->addStretch(1);
    setNotice(idleText());
}

RunGuestTab::~RunGuestTab() = default;

QString RunGuestTab::idleText() const
{
    return tr("No run is running. While a run's script runs, its %1 are here.").arg(m_what);
}

void RunGuestTab::runStarted()
{
    dropSession();
    if (m_content) {
        auto* box = static_cast<QVBoxLayout*>(layout());
        box->removeWidget(m_content);
        m_content->hide();
        m_content->deleteLater(); // ends its shells, drops its SFTP client
        m_content = nullptr;
        box->addStretch(1);
    }
    setNotice(tr("The run's microVM is starting; its %1 are here once it is ready.").arg(m_what));
}

void RunGuestTab::setSession(std::shared_ptr<GuestSession> session)
{
    m_live = std::make_shared<Live>();
    m_live->session = std::move(session);
    setNotice({});
    if (isVisible())
        makeContent();
}

void RunGuestTab::runEnded()
{
    dropSession();
    if (m_content && m_afterEnd == AfterEnd::Disable)
        m_content->setEnabled(false);
    setNotice(m_content ? tr("The run ended and its microVM is gone: these %1 are no longer live.")
                              .arg(m_what)
                        : idleText());
}

void RunGuestTab::dropSession()
{
    if (!m_live)
        return;
    {
        std::lock_guard lock(m_live->mutex);
        m_live->session.reset();
    }
    m_live.reset();
}

bool RunGuestTab::isLive() const
{
    return m_live != nullptr;
}

QString RunGuestTab::noticeText() const
{
    return m_notice->isHidden() ? QString() : m_notice->text();
}

void RunGuestTab::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_live && !m_content)
        makeContent();
}

void RunGuestTab::makeContent()
{
    std::shared_ptr<Live> live = m_live;
    m_content = m_factory([live]() -> Expected<std::shared_ptr<GuestSession>> {
        std::lock_guard lock(live->mutex);
        if (!live->session)
            return makeError(tr("the run's microVM is gone"));
        return live->session;
    });
    auto* box = static_cast<QVBoxLayout*>(layout());
    // The stretch under the notice gives way to the content.
    delete box->takeAt(box->count() - 1);
    box->addWidget(m_content, 1);
}

void RunGuestTab::setNotice(const QString& text)
{
    m_notice->setText(text);
    m_notice->setHidden(text.isEmpty());
}

} // namespace sbw
