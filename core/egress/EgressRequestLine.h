#pragma once

#include "action/ActionRecord.h"
#include "network/HttpProxyRequest.h"
#include "network/NetworkDestination.h"

#include <QString>

#include <optional>

namespace sbw {

/// What a network row of the command log holds as its command (and an approval request as its
/// subject): the request line the proxy judged, without its HTTP version, as the client wrote
/// it: "CONNECT pypi.org:443", "GET http://127.0.0.1:8080/simple/".
QString egressRequestLine(const HttpProxyRequest& request);

/// The destination of a network row (kind ActionKind::Network; its command is an
/// egressRequestLine()), read again by the proxy's own request reader and normalised as the
/// proxy judged it, for "allow always" or "deny always" from the row. nullopt for another kind
/// of row, or a request that named no valid host (the proxy refused it with 400).
std::optional<NetworkDestination> loggedDestination(const ActionRecord& row);

} // namespace sbw
