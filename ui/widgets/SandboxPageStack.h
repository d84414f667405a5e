#pragma once

#include <QStackedWidget>

#include <functional>
#include <map>

namespace sbw {

/// One page per sandbox, made on first use: a workspace's terminals, file tree or console
/// stay as they are while another workspace is shown. The placeholder page is shown while no
/// sandbox is selected.
class SandboxPageStack : public QStackedWidget
{
    Q_OBJECT

public:
    using Factory = std::function<QWidget*(const QString& sandbox)>;

    SandboxPageStack(Factory factory, const QString& placeholder, QWidget* parent = nullptr);

    /// Shows the page of `sandbox` (empty: the placeholder), making it when there is none.
    void showSandbox(const QString& sandbox);
    /// Deletes the page of `sandbox` (e.g. the workspace was deleted).
    void removeSandbox(const QString& sandbox);
    /// The page of `sandbox`, or nullptr when it was not made yet.
    QWidget* page(const QString& sandbox) const;
    /// The sandboxes that have a page.
    QStringList sandboxes() const;

private:
    Factory m_factory;
    QWidget* m_placeholder;
    std::map<QString, QWidget*> m_pages;
};

} // namespace sbw
