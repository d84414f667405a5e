#include "widgets/SandboxPageStack.h"

#include <QLabel>

namespace sbw {

SandboxPageStack::SandboxPageStack(Factory factory, const QString& placeholder, QWidget* parent)
    : QStackedWidget(parent), m_factory(std::move(factory))
{
    auto* label = new QLabel(placeholder, this);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    m_placeholder = label;
    addWidget(m_placeholder);
}

void SandboxPageStack::showSandbox(const QString& sandbox)
{
    if (sandbox.isEmpty()) {
        setCurrentWidget(m_placeholder);
        return;
    }
    auto it = m_pages.find(sandbox);
    if (it == m_pages.end()) {
        QWidget* made = m_factory(sandbox);
        addWidget(made);
        it = m_pages.emplace(sandbox, made).first;
    }
    setCurrentWidget(it->second);
}

void SandboxPageStack::removeSandbox(const QString& sandbox)
{
    auto it = m_pages.find(sandbox);
    if (it == m_pages.end())
        return;
    if (currentWidget() == it->second)
        setCurrentWidget(m_placeholder);
    removeWidget(it->second);
    it->second->deleteLater();
    m_pages.erase(it);
}

QWidget* SandboxPageStack::page(const QString& sandbox) const
{
    auto it = m_pages.find(sandbox);
    return it == m_pages.end() ? nullptr : it->second;
}

QStringList SandboxPageStack::sandboxes() const
{
    QStringList names;
    for (const auto& [name, page] : m_pages)
        names.append(name);
    return names;
}

} // namespace sbw
