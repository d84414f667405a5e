#include "terminal/TerminalTabs.h"

#include "base/Async.h"
#include "guest/GuestSession.h"
#include "terminal/TerminalTab.h"

#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace sbw {

TerminalTabs::TerminalTabs(QString sandboxName, SessionProvider sessionProvider,
                           TerminalTab::Lifetime lifetime, QWidget* parent)
    : QWidget(parent), m_sandboxName(std::move(sandboxName)),
      m_sessionProvider(std::move(sessionProvider)), m_lifetime(lifetime), m_pages(new QStackedWidget(this)),
      m_noTerminal(new QWidget(m_pages)), m_tabs(new QTabWidget(m_pages)), m_status(new QLabel(this))
{
    m_tabs->setTabsClosable(true);
    m_tabs->setDocumentMode(true);
    // A tab widget squeezes its corner widget to the tab bar's height, which clips a push
    // button's frame and text; a flat tool button fits in it.
    auto* newButton = new QToolButton(this);
    newButton->setObjectName(QStringLiteral("newTerminalCornerButton"));
    newButton->setText(tr("New Terminal"));
    newButton->setIcon(QIcon::fromTheme(QStringLiteral("tab-new")));
    newButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    newButton->setAutoRaise(true);
    newButton->setToolTip(tr("Open another login shell in the sandbox"));
    m_tabs->setCornerWidget(newButton, Qt::TopRightCorner);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);

    auto* offerText = new QLabel(tr("No terminal is open."), m_noTerminal);
    auto* offerButton = new QPushButton(tr("New Terminal"), m_noTerminal);
    offerButton->setObjectName(QStringLiteral("newTerminalButton"));
    offerButton->setToolTip(newButton->toolTip());
    auto* offer = new QVBoxLayout(m_noTerminal);
    offer->addStretch(1);
    offer->addWidget(offerText, 0, Qt::AlignHCenter);
    offer->addWidget(offerButton, 0, Qt::AlignHCenter);
    offer->addStretch(1);
    m_pages->addWidget(m_noTerminal);
    m_pages->addWidget(m_tabs);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages, 1);
    layout->addWidget(m_status);

    connect(newButton, &QToolButton::clicked, this, &TerminalTabs::openTerminal);
    connect(offerButton, &QPushButton::clicked, this, &TerminalTabs::openTerminal);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
        QWidget* page = m_tabs->widget(index);
        m_tabs->removeTab(index);
        page->deleteLater(); // closes the shell (SIGHUP in the guest)
        showTabsOrOffer();
    });
    showTabsOrOffer();
}

void TerminalTabs::showTabsOrOffer()
{
    // A tab widget without tabs hides its corner button too: a blank pane with no way on.
    m_pages->setCurrentWidget(m_tabs->count() > 0 ? static_cast<QWidget*>(m_tabs) : m_noTerminal);
}

int TerminalTabs::count() const
{
    return m_tabs->count();
}

TerminalTab* TerminalTabs::tab(int index) const
{
    return qobject_cast<TerminalTab*>(m_tabs->widget(index));
}

void TerminalTabs::reconnect()
{
    for (int i = 0; i < m_tabs->count(); ++i)
        tab(i)->reconnect();
}

void TerminalTabs::openTerminal()
{
    m_status->setText(tr("Connecting to the guest…"));
    runThen(this, m_sessionProvider, [this](const Expected<std::shared_ptr<GuestSession>>& session) {
        if (!session) {
            m_status->setText(tr("Cannot open a terminal: %1").arg(session.error().message));
            Q_EMIT openFailed(session.error().message);
            return;
        }
        m_status->clear();
        const QString label = tr("shell %1").arg(++m_opened);
        auto* tab = new TerminalTab(session.value(), m_sessionProvider, m_lifetime, m_sandboxName,
                                    label, m_tabs);
        const int index = m_tabs->addTab(tab, label);
        m_tabs->setCurrentIndex(index);
        showTabsOrOffer();
        connect(tab, &TerminalTab::titleChanged, this, [this, tab, label](const QString& title) {
            if (const int i = m_tabs->indexOf(tab); i >= 0)
                m_tabs->setTabText(i, title.isEmpty() ? label : label + QStringLiteral(": ") + title.left(40));
        });
        const auto setState = [this, tab, label](const QString& state) {
            if (const int i = m_tabs->indexOf(tab); i >= 0)
                m_tabs->setTabText(i, state.isEmpty() ? label : tr("%1 (%2)").arg(label, state));
        };
        connect(tab, &TerminalTab::ended, this, [setState] { setState(tr("ended")); });
        connect(tab, &TerminalTab::disconnected, this, [setState] { setState(tr("disconnected")); });
        connect(tab, &TerminalTab::reconnected, this, [setState] { setState({}); });
        tab->setFocus();
        Q_EMIT tabOpened(tab);
    });
}

} // namespace sbw
