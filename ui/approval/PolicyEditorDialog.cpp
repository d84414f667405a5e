#include "approval/PolicyEditorDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sbw {

PolicyEditorDialog::PolicyEditorDialog(Policy policy, QString path, const QStringList& workspaces, QWidget* parent)
    : QDialog(parent), m_policy(std::move(policy)), m_path(std::move(path)), m_scope(new QComboBox(this)),
      m_table(new QTableWidget(0, Decision + 1, this)), m_pause(new QCheckBox(tr("&Pause the workspace while an action waits"), this)),
      m_error(new QLabel(this))
{
    setWindowTitle(tr("Approval Policy"));
    m_scope->addItem(tr("Default rules (every workspace, after its own)"), QString());
    QStringList names = workspaces;
    names += m_policy.workspaceRules.keys();
    names += m_policy.workspacePauseWhileWaiting.keys();
    names.removeDuplicates();
    names.sort();
    for (const QString& name : names)
        m_scope->addItem(tr("Workspace %1").arg(name), name);
    m_table->setHorizontalHeaderLabels({tr("Kinds"), tr("Pattern"), tr("Ports"), tr("Decision")});
    m_table->horizontalHeader()->setSectionResizeMode(Pattern, QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setToolTip(tr("Kinds: comma-separated (%1); empty for every kind.\nPattern: a glob on the command, "
                           "path or workspace name (* matches anything, ? one character, [abc] a set).\nexec and "
                           "shell runs: each command of the line on its own, the program by its name; deny rules "
                           "are a net, allow rules the safe way.\nNetwork rules (kind network only): the "
                           "pattern is a host name, *.domain, an address or a CIDR range; Ports: comma-separated, "
                           "empty for 80 and 443.\nThe "
                           "first matching rule decides; agents are asked when none matches.")
                            .arg(policyActionKindNames()));
    m_pause->setToolTip(tr("A running workspace is paused while an action for it waits in the approval queue, "
                           "and runs again once it is decided (before an approved action runs).\nFor a "
                           "workspace, partly checked means: as the default rules say."));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setStyleSheet(QStringLiteral("color: palette(highlight)"));

    auto* add = new QPushButton(tr("Add Rule"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    auto* up = new QPushButton(tr("Move Up"), this);
    auto* down = new QPushButton(tr("Move Down"), this);
    connect(add, &QPushButton::clicked, this, [this] {
        addRow(PolicyRule{});
        m_table->selectRow(m_table->rowCount() - 1);
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (const int row = m_table->currentRow(); row >= 0)
            m_table->removeRow(row);
    });
    connect(up, &QPushButton::clicked, this, [this] { moveRow(-1); });
    connect(down, &QPushButton::clicked, this, [this] { moveRow(1); });
    auto* rowButtons = new QHBoxLayout;
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addStretch(1);
    rowButtons->addWidget(up);
    rowButtons->addWidget(down);

    auto* box = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(box, &QDialogButtonBox::accepted, this, [this] {
        if (auto written = save(); written)
            accept();
        else
            m_error->setText(written.error().message);
    });
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* pathLabel = new QLabel(tr("Stored in %1").arg(m_path), this);
    pathLabel->setTextFormat(Qt::PlainText);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_scope);
    layout->addWidget(m_table, 1);
    layout->addLayout(rowButtons);
    layout->addWidget(m_pause);
    layout->addWidget(m_error);
    layout->addWidget(pathLabel);
    layout->addWidget(box);
    resize(720, 420);

    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] {
        if (auto stored = storeScope(); !stored) {
            const QSignalBlocker block(m_scope);
            m_scope->setCurrentIndex(m_scope->findData(m_shownScope));
            m_error->setText(stored.error().message);
            return;
        }
        loadScope();
    });
    loadScope();
}

QString PolicyEditorDialog::scopeName() const
{
    return m_scope->currentData().toString();
}

void PolicyEditorDialog::loadScope()
{
    m_error->clear();
    m_shownScope = scopeName();
    m_table->setRowCount(0);
    const QList<PolicyRule> rules =
        m_shownScope.isEmpty() ? m_policy.defaultRules : m_policy.workspaceRules.value(m_shownScope);
    for (const PolicyRule& rule : rules)
        addRow(rule);
    m_pause->setTristate(!m_shownScope.isEmpty());
    if (m_shownScope.isEmpty())
        m_pause->setCheckState(m_policy.pauseWhileWaiting ? Qt::Checked : Qt::Unchecked);
    else if (const auto own = m_policy.workspacePauseWhileWaiting.constFind(m_shownScope);
             own != m_policy.workspacePauseWhileWaiting.cend())
        m_pause->setCheckState(own.value() ? Qt::Checked : Qt::Unchecked);
    else
        m_pause->setCheckState(Qt::PartiallyChecked);
}

void PolicyEditorDialog::addRow(const PolicyRule& rule)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    QStringList kinds;
    for (ActionKind kind : rule.kinds)
        kinds.append(actionKindName(kind));
    QStringList ports;
    for (quint16 port : rule.ports)
        ports.append(QString::number(port));
    m_table->setItem(row, Kinds, new QTableWidgetItem(kinds.join(QStringLiteral(", "))));
    m_table->setItem(row, Pattern, new QTableWidgetItem(rule.pattern));
    m_table->setItem(row, Ports, new QTableWidgetItem(ports.join(QStringLiteral(", "))));
    auto* decision = new QComboBox(m_table);
    for (PolicyDecision value : {PolicyDecision::Allow, PolicyDecision::Ask, PolicyDecision::Deny})
        decision->addItem(policyDecisionName(value), int(value));
    decision->setCurrentIndex(decision->findData(int(rule.decision)));
    m_table->setCellWidget(row, Decision, decision);
}

void PolicyEditorDialog::moveRow(int delta)
{
    const int row = m_table->currentRow();
    const int target = row + delta;
    if (row < 0 || target < 0 || target >= m_table->rowCount())
        return;
    for (int column : {Kinds, Pattern, Ports}) {
        QTableWidgetItem* a = m_table->takeItem(row, column);
        QTableWidgetItem* b = m_table->takeItem(target, column);
        m_table->setItem(row, column, b);
        m_table->setItem(target, column, a);
    }
    auto* a = static_cast<QComboBox*>(m_table->cellWidget(row, Decision));
    auto* b = static_cast<QComboBox*>(m_table->cellWidget(target, Decision));
    const int aIndex = a->currentIndex();
    a->setCurrentIndex(b->currentIndex());
    b->setCurrentIndex(aIndex);
    m_table->selectRow(target);
}

Expected<void> PolicyEditorDialog::storeScope()
{
    QList<PolicyRule> rules;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        PolicyRule rule;
        const QString kinds = m_table->item(row, Kinds) ? m_table->item(row, Kinds)->text() : QString();
        for (const QString& name : kinds.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const auto kind = actionKindFromName(name.trimmed());
            if (!kind || !policyActionKinds().contains(*kind))
                return makeError(tr("%1, rule %2: \"%3\" is not an action kind")
                                     .arg(m_shownScope.isEmpty() ? tr("default rules") : m_shownScope)
                                     .arg(row + 1)
                                     .arg(name.trimmed()));
            rule.kinds.append(*kind);
        }
        const QString pattern = m_table->item(row, Pattern) ? m_table->item(row, Pattern)->text() : QString();
        rule.pattern = pattern.isEmpty() ? QStringLiteral("*") : pattern;
        rule.decision = PolicyDecision(static_cast<QComboBox*>(m_table->cellWidget(row, Decision))->currentData().toInt());
        const QString where = tr("%1, rule %2").arg(m_shownScope.isEmpty() ? tr("default rules") : m_shownScope).arg(row + 1);
        const QString ports = m_table->item(row, Ports) ? m_table->item(row, Ports)->text() : QString();
        if (rule.kinds.contains(ActionKind::Network)) {
            if (rule.kinds.size() != 1)
                return makeError(tr("%1: network rules name only the kind network").arg(where));
            if (auto pattern = NetworkPattern::parse(rule.pattern); !pattern)
                return makeError(QStringLiteral("%1: %2").arg(where, pattern.error().message));
            for (const QString& text : ports.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                bool ok = false;
                const uint port = text.trimmed().toUInt(&ok);
                if (!ok || port == 0 || port > 65535)
                    return makeError(tr("%1: \"%2\" is not a port (1-65535)").arg(where, text.trimmed()));
                rule.ports.append(quint16(port));
            }
        } else if (!ports.trimmed().isEmpty()) {
            return makeError(tr("%1: ports are for network rules").arg(where));
        }
        rules.append(rule);
    }
    if (m_shownScope.isEmpty())
        m_policy.defaultRules = rules;
    else if (rules.isEmpty())
        m_policy.workspaceRules.remove(m_shownScope);
    else
        m_policy.workspaceRules.insert(m_shownScope, rules);
    if (m_shownScope.isEmpty())
        m_policy.pauseWhileWaiting = m_pause->isChecked();
    else if (m_pause->checkState() == Qt::PartiallyChecked)
        m_policy.workspacePauseWhileWaiting.remove(m_shownScope);
    else
        m_policy.workspacePauseWhileWaiting.insert(m_shownScope, m_pause->isChecked());
    return {};
}

Expected<Policy> PolicyEditorDialog::policy()
{
    if (auto stored = storeScope(); !stored)
        return stored.error();
    return m_policy;
}

Expected<void> PolicyEditorDialog::save()
{
    auto edited = policy();
    if (!edited)
        return edited.error();
    if (auto written = edited->save(m_path); !written)
        return written;
    Q_EMIT saved(edited.value());
    return {};
}

} // namespace sbw
