#include "workspace/WorkspaceEnvironment.h"

#include "workspace/WorkspaceRecord.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace sbw {

Expected<void> validateVariableName(const QString& name)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    if (!valid.match(name).hasMatch())
        return makeError(QStringLiteral("'%1' is not an environment variable name: use letters, "
                                        "digits and '_', not starting with a digit")
                             .arg(name));
    return {};
}

Expected<void> WorkspaceEnvironment::set(const QString& name, const QString& value, bool secret)
{
    if (auto valid = validateVariableName(name); !valid)
        return valid;
    if (value.contains(QChar(0)))
        return makeError(QStringLiteral("the value of %1 holds a NUL character").arg(name));
    for (WorkspaceVariable& variable : m_variables) {
        if (variable.name == name) {
            variable.value = value;
            variable.secret = secret;
            return {};
        }
    }
    m_variables.append({name, value, secret});
    return {};
}

bool WorkspaceEnvironment::unset(const QString& name)
{
    return m_variables.removeIf([&](const WorkspaceVariable& v) { return v.name == name; }) > 0;
}

QList<QByteArray> WorkspaceEnvironment::secretValues() const
{
    QList<QByteArray> values;
    for (const WorkspaceVariable& variable : m_variables)
        if (variable.secret && !variable.value.isEmpty())
            values.append(variable.value.toUtf8());
    return values;
}

QByteArray WorkspaceEnvironment::exportLines() const
{
    QByteArray lines;
    for (const WorkspaceVariable& variable : m_variables) {
        QByteArray value = variable.value.toUtf8();
        value.replace('\'', "'\\''");
        lines += "export " + variable.name.toLatin1() + "='" + value + "'\n";
    }
    return lines;
}

QJsonArray WorkspaceEnvironment::toJson() const
{
    QJsonArray array;
    for (const WorkspaceVariable& variable : m_variables)
        array.append(QJsonObject{{QStringLiteral("name"), variable.name},
                                 {QStringLiteral("value"), variable.value},
                                 {QStringLiteral("secret"), variable.secret}});
    return array;
}

WorkspaceEnvironment WorkspaceEnvironment::fromJson(const QJsonArray& json)
{
    WorkspaceEnvironment environment;
    for (const QJsonValue& entry : json) {
        const QJsonObject object = entry.toObject();
        (void)environment.set(object.value(QStringLiteral("name")).toString(),
                              object.value(QStringLiteral("value")).toString(),
                              object.value(QStringLiteral("secret")).toBool());
    }
    return environment;
}

Expected<WorkspaceEnvironment> loadWorkspaceEnvironment(const QString& name)
{
    auto json = readWorkspaceRecordJson(name);
    if (!json)
        return json.error();
    return WorkspaceEnvironment::fromJson(json->value(QStringLiteral("environment")).toArray());
}

} // namespace sbw
