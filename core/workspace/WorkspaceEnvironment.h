#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QString>

namespace sbw {

/// One environment variable of a workspace. A secret one is masked (SecretMasker) wherever the
/// workbench stores or shows text of that workspace: the command log, its pane and exports, and
/// `sbw ws env NAME list`.
struct WorkspaceVariable
{
    QString name;  ///< [A-Za-z_][A-Za-z0-9_]*
    QString value; ///< any text; injected exactly
    bool secret = false;

    bool operator==(const WorkspaceVariable&) const = default;
};

/// The environment variables a workspace injects into every command run in it (the GUI's
/// command line, `sbw ws exec`, agents' exec), in the order they were first set. Kept in the
/// workspace's JSON record (readable by its owner only), never in the libvirt domain's XML,
/// which read-only libvirt clients can see.
class WorkspaceEnvironment
{
public:
    const QList<WorkspaceVariable>& variables() const { return m_variables; }
    bool isEmpty() const { return m_variables.isEmpty(); }

    /// Sets (adds or replaces) `name`. Errors: a name that is not [A-Za-z_][A-Za-z0-9_]*, a
    /// value with a NUL character.
    Expected<void> set(const QString& name, const QString& value, bool secret);
    /// Removes `name`; false when it was not set.
    bool unset(const QString& name);

    /// The values of the secret variables as UTF-8, for CommandLog::setSecrets().
    QList<QByteArray> secretValues() const;
    /// Shell lines that export every variable, each value single-quoted:
    /// "export A='1'\nexport B='it'\\''s'\n"; empty when there are none.
    QByteArray exportLines() const;

    /// [{"name": …, "value": …, "secret": bool}, …]
    QJsonArray toJson() const;
    /// Entries with an invalid name are skipped.
    static WorkspaceEnvironment fromJson(const QJsonArray& json);

    bool operator==(const WorkspaceEnvironment&) const = default;

private:
    QList<WorkspaceVariable> m_variables;
};

/// Checks an environment variable name. Errors say what a name may hold.
Expected<void> validateVariableName(const QString& name);

/// The environment of workspace `name` from its JSON record (<dataDir>/workspaces/<name>.json);
/// empty when the record does not exist. Errors: the record cannot be read or is not JSON.
Expected<WorkspaceEnvironment> loadWorkspaceEnvironment(const QString& name);

} // namespace sbw
