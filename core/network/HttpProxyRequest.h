#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>
#include <utility>

namespace sbw {

/// One request a client sent to the egress proxy: `CONNECT host:port` (a tunnel, for TLS) or a
/// plain-HTTP request with an absolute URI (`GET http://host:port/path HTTP/1.1`), RFC 9112 §3.2.
struct HttpProxyRequest
{
    QByteArray method;   ///< "CONNECT", "GET", …
    QString host;        ///< as the client wrote it, brackets of an IPv6 literal removed
    quint16 port = 0;    ///< CONNECT: the one named; HTTP: the URI's, else 80
    QByteArray target;   ///< HTTP: origin form for the server ("/path?query"); CONNECT: empty
    int httpMinor = 1;   ///< HTTP/1.x
    QList<std::pair<QByteArray, QByteArray>> headers; ///< in order, as sent

    bool isConnect() const { return method == "CONNECT"; }
    /// HTTP only: the head the proxy sends to the server: the request line in origin form, the
    /// client's headers without hop-by-hop ones (Connection and what it names, Keep-Alive,
    /// Proxy-*, TE, Trailer, Upgrade) and without Host, then `Host:` of the URI — a server sees
    /// the host the policy judged, never another one the client put in Host — and
    /// `Connection: close` (one request per connection, so a second request on it cannot
    /// reach another host unjudged).
    QByteArray forwardedHead() const;
};

/// Reads what a client sends to the egress proxy with Node's http-parser (Debian's
/// libhttp-parser): first the head of one request, then, for plain HTTP, the raw bytes of its
/// body (framing kept: Content-Length or chunked) up to the end of that message. Bytes after
/// it (a pipelined second request) are not part of the message; the proxy serves one request
/// per connection. Not thread-safe; one reader per client connection.
class HttpProxyRequestReader
{
public:
    /// Largest request head accepted; a longer one is refused with 431.
    static constexpr qsizetype kMaxHeadBytes = 64 * 1024;

    enum class State
    {
        Head,  ///< more bytes needed for the head
        Body,  ///< head read: request() is valid; HTTP body bytes follow
        Done,  ///< the whole message was read (CONNECT: its head; a tunnel follows)
        Error, ///< malformed or not a proxy request: errorStatus() / errorText()
    };

    HttpProxyRequestReader();
    ~HttpProxyRequestReader();
    HttpProxyRequestReader(const HttpProxyRequestReader&) = delete;
    HttpProxyRequestReader& operator=(const HttpProxyRequestReader&) = delete;

    /// What feed() took from one chunk of client bytes.
    struct Fed
    {
        /// How many bytes of the chunk belong to this request (all of them until its end).
        /// After Done, the rest of the chunk is not this request's: a CONNECT tunnel's first
        /// bytes, or a second request (the proxy serves one per connection).
        qsizetype consumed = 0;
        /// The body bytes in the chunk, framing kept, to forward to the server as they are: a
        /// view into the chunk given to feed().
        QByteArrayView body;
    };

    /// Feeds the next bytes from the client. Feeding in Error or Done state, or no bytes, takes
    /// nothing (the client's EOF is the connection's business, not the reader's).
    Fed feed(QByteArrayView bytes);

    State state() const { return m_state; }
    /// Valid from Body (or Done for CONNECT) on.
    const HttpProxyRequest& request() const { return m_request; }
    /// Error: the HTTP status to answer with (400, 431, 501) and why, for the client and the log.
    int errorStatus() const { return m_errorStatus; }
    QString errorText() const { return m_errorText; }

private:
    struct Parser;
    void fail(int status, const QString& text);
    bool finishHead();
    /// Parses body bytes; the first `skip` of them are the head's last byte, parsed again.
    Fed feedBody(QByteArrayView bytes, qsizetype skip);

    std::unique_ptr<Parser> m_parser;
    State m_state = State::Head;
    HttpProxyRequest m_request;
    QByteArray m_url;
    qsizetype m_headBytes = 0;
    int m_errorStatus = 0;
    QString m_errorText;
};

} // namespace sbw
