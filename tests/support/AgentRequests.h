#pragma once

#include "action/ActionGate.h"

#include <QByteArray>
#include <QString>

namespace sbw::test {

/// An MCP agent's request as the approval tests ask it: actor agent "claude-code" (shown as
/// "agent (claude-code)"), kind exec, `command` in the guest folder /root of workspace `sandbox`.
ActionRequest agentExec(const QString& command, const QString& sandbox = QStringLiteral("demo"));

/// The same agent writing `content` to the guest file `path` in workspace "demo" (kind
/// file-write, folder /root).
ActionRequest agentFileWrite(const QString& path, const QByteArray& content);

} // namespace sbw::test
