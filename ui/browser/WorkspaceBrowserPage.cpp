#include "browser/WorkspaceBrowserPage.h"

#include "browser/BrowserHold.h"
#include "browser/BrowserLaunch.h"
#include "browser/BrowserSession.h"
#include "browser/BrowserView.h"
#include "log/LoggedAction.h"

#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace sbw {
namespace {

/// How long starting may wait for a guest that is still booting (TCG boots take longest).
constexpr std::chrono::seconds kReadyWait{120};

} // namespace

WorkspaceBrowserPage::WorkspaceBrowserPage(QString workspaceName, WorkspaceProvider workspace, QString person,
                                           QWidget* parent)
    : QWidget(parent), m_name(std::move(workspaceName)), m_workspace(std::move(workspace)), m_person(std::move(person)),
      m_back(new QToolButton(this)), m_address(new QLineEdit(this)), m_takeOver(new QPushButton(tr("Take Over"), this)),
      m_title(new QLabel(this)), m_status(new QLabel(this)), m_connect(new QPushButton(tr("Connect"), this)),
      m_view(new BrowserView(this))
{
    m_back->setText(tr("Back"));
    m_back->setToolTip(tr("Go back to the previous page"));
    m_address->setObjectName(QStringLiteral("browserAddress"));
    m_address->setPlaceholderText(tr("The page's address"));
    m_takeOver->setObjectName(QStringLiteral("takeOverButton"));
    m_takeOver->setToolTip(tr("Click and type into the page yourself; agents' browser steps are refused meanwhile"));
    m_connect->setObjectName(QStringLiteral("connectButton"));
    // The page's title and address are the guest's text: shown as text, never as links or markup.
    m_title->setTextFormat(Qt::PlainText);
    m_title->setObjectName(QStringLiteral("browserTitle"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_back);
    bar->addWidget(m_address, 1);
    bar->addWidget(m_takeOver);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_title);
    layout->addWidget(m_status);
    layout->addWidget(m_connect, 0, Qt::AlignLeft);
    layout->addWidget(m_view, 1);

    connect(m_connect, &QPushButton::clicked, this, &WorkspaceBrowserPage::connectToBrowser);
    connect(m_takeOver, &QPushButton::clicked, this, [this] { m_held ? handBack() : takeOver(); });
    connect(m_back, &QToolButton::clicked, this, [this] {
        enqueue({QStringLiteral("back"), [](BrowserPage& page, BrowserPage::Done done) { page.back(std::move(done)); }});
    });
    connect(m_address, &QLineEdit::returnPressed, this, [this] {
        const QString url = m_address->text().trimmed();
        if (!BrowserPage::isNavigableUrl(url))
            return setStatus(tr("\"%1\" is not an http, https or file address.").arg(url));
        m_address->setModified(false); // from now on it shows where the page is
        enqueue({QStringLiteral("navigate %1").arg(url),
                 [url](BrowserPage& page, BrowserPage::Done done) { page.navigate(url, std::move(done)); }, false});
    });
    connect(m_view, &BrowserView::clicked, this, [this](QPointF point) {
        const int x = qRound(point.x());
        const int y = qRound(point.y());
        enqueue({QStringLiteral("click at %1,%2").arg(x).arg(y),
                 [x, y](BrowserPage& page, BrowserPage::Done done) { page.clickAt(x, y, std::move(done)); }});
    });
    connect(m_view, &BrowserView::typed, this, &WorkspaceBrowserPage::type);
    connect(m_view, &BrowserView::keyPressed, this, [this](const QString& key) {
        enqueue({QStringLiteral("key %1").arg(key), [key](BrowserPage& page, BrowserPage::Done done) { page.key(key, std::move(done)); }});
    });
    updateControls();
}

WorkspaceBrowserPage::~WorkspaceBrowserPage()
{
    if (m_held)
        browser_hold::release(m_name);
}

QString WorkspaceBrowserPage::pageTitle() const
{
    return m_title->text();
}

QString WorkspaceBrowserPage::statusText() const
{
    return m_status->text();
}

void WorkspaceBrowserPage::connectToBrowser()
{
    if (m_session)
        return;
    const std::shared_ptr<Workspace> workspace = m_workspace();
    if (!workspace)
        return setStatus(tr("Workspace '%1' no longer exists.").arg(m_name));
    m_session = new BrowserSession(workspace, kReadyWait, this);
    connect(m_session, &BrowserSession::pageEvent, this, &WorkspaceBrowserPage::onPageEvent);
    connect(m_session, &BrowserSession::lost, this, [this](const QString& reason) {
        closeSession(tr("The connection to the browser ended: %1.").arg(reason));
    });
    setStatus(tr("Starting the workspace's browser…"));
    m_session->ensureReady([this, session = m_session](Expected<void> ready) {
        if (session != m_session)
            return;
        if (!ready)
            return closeSession(tr("Cannot show the browser: %1").arg(ready.error().message));
        onReady();
    });
    updateControls();
}

void WorkspaceBrowserPage::onReady()
{
    setStatus(m_held ? QString() : tr("Watching. Take Over to click, type and navigate yourself."));
    if (isVisible())
        startScreencast();
    updateControls();
}

/// Asks for screencast frames (sent when the page changes, whoever changed it) and shows the
/// page as it is now.
void WorkspaceBrowserPage::startScreencast()
{
    const QJsonObject screencast{{QStringLiteral("format"), QStringLiteral("jpeg")},
                                 {QStringLiteral("quality"), 80},
                                 {QStringLiteral("maxWidth"), browser_launch::kViewportWidth},
                                 {QStringLiteral("maxHeight"), browser_launch::kViewportHeight}};
    m_session->call(QStringLiteral("Page.startScreencast"), screencast, [](Expected<QJsonObject>) {});
    refreshPage();
}

void WorkspaceBrowserPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_session && m_session->state() == BrowserSession::State::Ready)
        startScreencast();
}

void WorkspaceBrowserPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    if (m_session && m_session->state() == BrowserSession::State::Ready)
        m_session->call(QStringLiteral("Page.stopScreencast"), {}, [](Expected<QJsonObject>) {});
}

void WorkspaceBrowserPage::onPageEvent(const QString& method, const QJsonObject& params)
{
    if (method == QLatin1String("Page.screencastFrame")) {
        if (!isVisible())
            return; // sent before the stop (hideEvent) arrived
        const QJsonObject metadata = params.value(QStringLiteral("metadata")).toObject();
        showFrame(QByteArray::fromBase64(params.value(QStringLiteral("data")).toString().toLatin1()),
                  {metadata.value(QStringLiteral("deviceWidth")).toDouble(), metadata.value(QStringLiteral("deviceHeight")).toDouble()});
        // Chromium sends the next frame only once this one is acknowledged.
        m_session->call(QStringLiteral("Page.screencastFrameAck"), {{QStringLiteral("sessionId"), params.value(QStringLiteral("sessionId"))}},
                        [](Expected<QJsonObject>) {});
    } else if (method == QLatin1String("Page.loadEventFired") || method == QLatin1String("Page.navigatedWithinDocument")
               || (method == QLatin1String("Page.frameNavigated")
                   && !params.value(QStringLiteral("frame")).toObject().contains(QStringLiteral("parentId")))) {
        auto* page = new BrowserPage(m_session, this);
        page->current([this, page](Expected<BrowserStep> step) {
            page->deleteLater();
            if (step)
                showPageState(step.value().after);
        });
    }
}

void WorkspaceBrowserPage::showFrame(const QByteArray& image, const QSizeF& pageSize)
{
    const QImage frame = QImage::fromData(image);
    if (frame.isNull())
        return;
    m_view->setFrame(frame, pageSize);
    Q_EMIT frameShown();
}

/// Shows a screenshot of the page with its address and title.
void WorkspaceBrowserPage::refreshPage()
{
    auto* page = new BrowserPage(m_session, this);
    page->screenshot([this, page](Expected<BrowserStep> step) {
        page->deleteLater();
        if (!step)
            return;
        showPageState(step.value().after);
        showFrame(step.value().png, QSizeF(browser_launch::kViewportWidth, browser_launch::kViewportHeight));
    });
}

void WorkspaceBrowserPage::showPageState(const PageState& state)
{
    m_url = state.url;
    if (!m_address->isModified()) // an address the person is typing stays
        m_address->setText(state.url);
    m_title->setText(state.title.isEmpty() ? state.url : state.title);
}

void WorkspaceBrowserPage::takeOver()
{
    if (auto taken = browser_hold::take(m_name, m_person); !taken)
        return setStatus(tr("Cannot take over: %1").arg(taken.error().message));
    m_held = true;
    logMoment(QStringLiteral("take over"));
    setStatus(tr("You hold the browser: click and type into the page. Agents' browser steps are refused until you "
                 "hand it back."));
    updateControls();
}

void WorkspaceBrowserPage::handBack()
{
    browser_hold::release(m_name);
    m_held = false;
    m_steps.clear();
    logMoment(QStringLiteral("hand back"));
    setStatus(m_session ? tr("Watching. Take Over to click, type and navigate yourself.") : m_status->text());
    updateControls();
}

/// A row for a moment of the take-over: from Take Over to Hand Back the agents' steps are
/// refused, and the log shows why.
void WorkspaceBrowserPage::logMoment(const QString& command)
{
    ActionStart start;
    start.sandbox = m_name;
    start.kind = ActionKind::Browse;
    start.command = m_url.isEmpty() ? command : command + QStringLiteral(" on ") + m_url;
    ActionEnd end = LoggedAction::endOf(Expected<void>());
    end.urlBefore = end.urlAfter = m_url;
    LoggedAction(m_log, start).finish(end);
}

void WorkspaceBrowserPage::enqueue(Step step)
{
    if (!m_held || !m_session)
        return;
    m_steps.push_back(std::move(step));
    runNextStep();
}

/// Typing: keys pressed while an earlier step runs join one type step, so a word typed under a
/// slow guest is one row, in order with the clicks around it.
void WorkspaceBrowserPage::type(const QString& text)
{
    if (!m_steps.empty() && !m_steps.back().typed.isNull()) {
        Step& waiting = m_steps.back();
        waiting.typed += text;
        const QString typed = waiting.typed;
        waiting.command = BrowserPage::typeCommand(typed, {});
        waiting.start = [typed](BrowserPage& page, BrowserPage::Done done) { page.type(typed, {}, std::move(done)); };
        return;
    }
    enqueue({BrowserPage::typeCommand(text, {}),
             [text](BrowserPage& page, BrowserPage::Done done) { page.type(text, {}, std::move(done)); }, true, text});
}

void WorkspaceBrowserPage::runNextStep()
{
    if (m_stepRunning || m_steps.empty() || !m_session)
        return;
    const Step step = std::move(m_steps.front());
    m_steps.pop_front();
    m_stepRunning = true;
    ActionStart start;
    start.sandbox = m_name;
    start.kind = ActionKind::Browse;
    start.command = step.onPage && !m_url.isEmpty() ? step.command + QStringLiteral(" on ") + m_url : step.command;
    auto row = std::make_shared<LoggedAction>(m_log, start);
    auto* page = new BrowserPage(m_session, this);
    step.start(*page, [this, page, row, command = start.command](Expected<BrowserStep> result) {
        page->deleteLater();
        ActionEnd end = LoggedAction::endOf(result ? Expected<void>() : Expected<void>(result.error()));
        if (result) {
            end.urlBefore = result.value().before.url;
            end.urlAfter = result.value().after.url;
            showPageState(result.value().after);
        } else {
            setStatus(tr("%1: %2").arg(command, result.error().message));
        }
        row->finish(end);
        m_stepRunning = false;
        Q_EMIT stepFinished(command, result ? QString() : result.error().message);
        runNextStep();
    });
}

void WorkspaceBrowserPage::showGuestDown(const QString& why)
{
    closeSession(why);
    m_connect->hide(); // nothing to connect to until the guest runs again
}

void WorkspaceBrowserPage::closeSession(const QString& why)
{
    if (m_session) {
        m_session->close(why);
        m_session->deleteLater();
    }
    m_session = nullptr;
    m_steps.clear();
    m_stepRunning = false;
    setStatus(why, true);
    updateControls();
}

void WorkspaceBrowserPage::setStatus(const QString& text, bool offerConnect)
{
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
    m_connect->setVisible(offerConnect);
}

void WorkspaceBrowserPage::updateControls()
{
    const bool ready = m_session && m_session->state() == BrowserSession::State::Ready;
    m_takeOver->setText(m_held ? tr("Hand Back") : tr("Take Over"));
    m_takeOver->setEnabled(m_held || ready);
    m_back->setEnabled(m_held && ready);
    m_address->setReadOnly(!(m_held && ready));
    m_view->setInteractive(m_held && ready);
}

} // namespace sbw
