#include "agents/AgentsPane.h"

#include "base/VisibleText.h"
#include "mcp/McpHttpTransport.h"
#include "mcp/McpServer.h"
#include "widgets/WholeHeaders.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sbw {

namespace {
const QString kPortKey = QStringLiteral("mcp/port");
}

AgentsPane::AgentsPane(McpServer* server, McpHttpTransport* transport, QByteArray token, QWidget* parent)
    : QWidget(parent), m_server(server), m_transport(transport), m_token(std::move(token)),
      m_serverAction(new QAction(tr("MCP &Server (HTTP)"), this)), m_port(new QSpinBox(this)),
      m_status(new QLabel(this)), m_tokenEdit(new QLineEdit(QString::fromLatin1(m_token), this)),
      m_snippet(new QPlainTextEdit(this)), m_copySnippet(new QPushButton(tr("Copy"), this)),
      m_clients(new QTableWidget(0, 5, this)),
      m_disconnect(new QPushButton(tr("&Disconnect"), this)), m_start(new QPushButton(tr("Start"), this))
{
    setObjectName(QStringLiteral("agentsPane"));
    m_serverAction->setCheckable(true);
    m_serverAction->setEnabled(!m_token.isEmpty());
    connect(m_serverAction, &QAction::toggled, this, &AgentsPane::setServing);

    m_port->setRange(1, 65535);
    m_port->setValue(QSettings().value(kPortKey, kDefaultPort).toInt());
    connect(m_port, &QSpinBox::valueChanged, this, [this](int port) {
        QSettings().setValue(kPortKey, port);
        m_snippet->setPlainText(shownSnippet());
    });
    connect(m_start, &QPushButton::clicked, m_serverAction, &QAction::toggle);
    auto* serverRow = new QHBoxLayout;
    serverRow->addWidget(m_port);
    serverRow->addWidget(m_start);
    serverRow->addStretch(1);
    // Messages can be long (a port in use): wrapped on a row of their own, they never widen the dock.
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);

    m_tokenEdit->setReadOnly(true);
    m_tokenEdit->setEchoMode(QLineEdit::PasswordEchoOnEdit);
    auto* copyToken = new QPushButton(tr("Copy"), this);
    connect(copyToken, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(QString::fromLatin1(m_token)); });
    auto* tokenRow = new QHBoxLayout;
    tokenRow->addWidget(m_tokenEdit, 1);
    tokenRow->addWidget(copyToken);

    m_snippet->setReadOnly(true);
    m_snippet->setLineWrapMode(QPlainTextEdit::NoWrap); // JSON reads better scrolled than wrapped
    m_snippet->setMaximumHeight(fontMetrics().lineSpacing() * 9);
    m_snippet->setMinimumHeight(fontMetrics().lineSpacing() * 5);
    m_snippet->setPlainText(shownSnippet()); // the token stays off the screen; Copy gives it
    m_copySnippet->setToolTip(tr("Copy the configuration with the bearer token"));
    connect(m_copySnippet, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(clientSnippet()); });
    auto* snippetRow = new QHBoxLayout;
    snippetRow->addWidget(m_copySnippet);
    snippetRow->addStretch(1);

    auto* commandClients = new QLabel(tr("<code>sbw mcp</code> serves MCP on stdin/stdout"), this);
    commandClients->setWordWrap(true);
    auto* form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapAllRows); // labels above their fields: the dock stays narrow
    form->addRow(tr("Port on 127.0.0.1:"), serverRow);
    form->addRow(QString(), m_status);
    form->addRow(tr("Bearer token:"), tokenRow);
    form->addRow(tr("Client config:"), snippetRow);
    form->addRow(m_snippet); // the whole width of the dock
    form->addRow(tr("Command clients:"), commandClients);

    m_clients->setHorizontalHeaderLabels({tr("Client"), tr("Version"), tr("Transport"), tr("Session"), tr("Last call")});
    m_clients->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_clients->setSelectionMode(QAbstractItemView::SingleSelection);
    m_clients->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_clients->verticalHeader()->hide();
    m_clients->setWordWrap(false);
    // A narrow dock shows who, which session and the last call; version and transport are in the
    // client's tooltip (the header's context menu shows their columns).
    QHeaderView* header = m_clients->horizontalHeader();
    header->setStretchLastSection(true);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(0, QHeaderView::Interactive);
    header->setSectionResizeMode(4, QHeaderView::Stretch);
    header->setContextMenuPolicy(Qt::ActionsContextMenu);
    for (const int column : {1, 2}) {
        header->setSectionHidden(column, true);
        auto* toggle = new QAction(m_clients->horizontalHeaderItem(column)->text(), header);
        toggle->setCheckable(true);
        connect(toggle, &QAction::toggled, header, [this, header, column](bool on) {
            header->setSectionHidden(column, !on);
            keepHeadersWhole(m_clients, header);
        });
        header->addAction(toggle);
    }
    keepHeadersWhole(m_clients, header);
    m_clients->setMinimumHeight(header->sizeHint().height() + fontMetrics().lineSpacing() * 3);
    m_disconnect->setEnabled(false);
    connect(m_clients, &QTableWidget::itemSelectionChanged, this,
            [this] { m_disconnect->setEnabled(!m_clients->selectedItems().isEmpty()); });
    connect(m_disconnect, &QPushButton::clicked, this, [this] {
        const auto selected = m_clients->selectedItems();
        if (!selected.isEmpty())
            m_server->closeSession(m_clients->item(selected.first()->row(), 3)->data(Qt::UserRole).toString(),
                                   tr("disconnected from the Agents pane"));
    });

    // The settings scroll in a short dock; the splitter shares the height with the client table.
    auto* settings = new QWidget(this);
    settings->setLayout(form);
    auto* settingsScroll = new QScrollArea(this);
    settingsScroll->setFrameShape(QFrame::NoFrame);
    settingsScroll->setWidgetResizable(true);
    settingsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    settingsScroll->setWidget(settings);
    settingsScroll->setMinimumHeight(fontMetrics().lineSpacing() * 5);
    auto* clients = new QWidget(this);
    auto* clientsLayout = new QVBoxLayout(clients);
    clientsLayout->setContentsMargins(0, 0, 0, 0);
    clientsLayout->addWidget(m_clients, 1);
    clientsLayout->addWidget(m_disconnect, 0, Qt::AlignLeft);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("agentsSplitter")); // its sizes are kept (MainWindow)
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(settingsScroll);
    splitter->addWidget(clients);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(m_server, &McpServer::clientsChanged, this, &AgentsPane::refreshClients);
    refreshClients();
    refreshServer();
}

QSize AgentsPane::sizeHint() const
{
    return {fontMetrics().averageCharWidth() * 56, QWidget::sizeHint().height()};
}

QString AgentsPane::clientSnippet() const
{
    return snippet(QString::fromLatin1(m_token));
}

QString AgentsPane::shownSnippet() const
{
    return snippet(QStringLiteral("<token>"));
}

QString AgentsPane::snippet(const QString& token) const
{
    const QJsonObject server{
        {QStringLiteral("type"), QStringLiteral("http")},
        {QStringLiteral("url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_port->value())},
        {QStringLiteral("headers"),
         QJsonObject{{QStringLiteral("Authorization"), QStringLiteral("Bearer ") + token}}}};
    const QJsonObject config{
        {QStringLiteral("mcpServers"), QJsonObject{{QStringLiteral("sandbox-workbench"), server}}}};
    return QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Indented)).trimmed();
}

void AgentsPane::setServing(bool on)
{
    if (on == m_transport->isListening())
        return refreshServer();
    if (!on) {
        m_transport->stop();
    } else if (auto listening = m_transport->listen(quint16(m_port->value())); !listening) {
        m_status->setText(listening.error().message);
        const QSignalBlocker blocker(m_serverAction);
        m_serverAction->setChecked(false);
        m_start->setText(tr("Start"));
        return;
    }
    refreshServer();
}

void AgentsPane::refreshServer()
{
    const bool on = m_transport->isListening();
    m_port->setEnabled(!on);
    m_start->setText(on ? tr("Stop") : tr("Start"));
    if (m_token.isEmpty())
        m_status->setText(tr("no bearer token: the server cannot start"));
    else
        m_status->setText(on ? tr("serving http://127.0.0.1:%1/mcp").arg(m_transport->port()) : tr("stopped"));
    if (m_serverAction->isChecked() != on) {
        const QSignalBlocker blocker(m_serverAction);
        m_serverAction->setChecked(on);
    }
}

void AgentsPane::refreshClients()
{
    const QList<McpClientInfo> clients = m_server->clients();
    m_clients->setRowCount(int(clients.size()));
    for (int row = 0; row < clients.size(); ++row) {
        const McpClientInfo& client = clients[row];
        const QString lastCall = client.lastCall.isValid()
                                     ? client.lastTool + QStringLiteral(" at ") +
                                           client.lastCall.toLocalTime().toString(QStringLiteral("HH:mm:ss"))
                                     : tr("none yet");
        const QStringList cells{oneLineVisible(client.name), oneLineVisible(client.version), client.transport,
                                client.sessionId.left(8), lastCall};
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            if (column == 0)
                item->setToolTip(tr("%1 %2 over %3").arg(cells[0], cells[1], cells[2]));
            if (column == 3)
                item->setData(Qt::UserRole, client.sessionId);
            m_clients->setItem(row, column, item);
        }
    }
    // The client's name as wide as it is, but at most 16 characters (whole in the tooltip).
    m_clients->resizeColumnToContents(0);
    const int cap = fontMetrics().averageCharWidth() * 16;
    if (m_clients->columnWidth(0) > cap)
        m_clients->setColumnWidth(0, cap);
    m_disconnect->setEnabled(!m_clients->selectedItems().isEmpty());
}

} // namespace sbw
