#include "network/HttpProxyRequest.h"

#include <http_parser.h>

#include <QSet>

namespace sbw {
namespace {

/// Headers that concern one hop only (RFC 9110 §7.6.1) and are never forwarded. Content-Length
/// and Transfer-Encoding stay, whatever Connection names: the body is forwarded with its framing.
bool isHopByHop(const QByteArray& lowerName, const QSet<QByteArray>& namedByConnection)
{
    static const QSet<QByteArray> always = {"connection",          "keep-alive", "proxy-connection",
                                            "proxy-authorization", "proxy-authenticate",
                                            "te",                  "trailer",    "upgrade",
                                            "host"};
    if (lowerName == "content-length" || lowerName == "transfer-encoding")
        return false;
    return always.contains(lowerName) || namedByConnection.contains(lowerName);
}

QByteArray urlField(const QByteArray& url, const http_parser_url& parts, int field)
{
    if (!(parts.field_set & (1 << field)))
        return {};
    return url.mid(parts.field_data[field].off, parts.field_data[field].len);
}

} // namespace

QByteArray HttpProxyRequest::forwardedHead() const
{
    QSet<QByteArray> namedByConnection;
    for (const auto& [name, value] : headers) {
        if (name.toLower() == "connection" || name.toLower() == "proxy-connection") {
            for (const QByteArray& token : value.split(','))
                namedByConnection.insert(token.trimmed().toLower());
        }
    }
    const QByteArray hostText = host.contains(QLatin1Char(':'))
                                    ? '[' + host.toUtf8() + ']'
                                    : host.toUtf8();
    QByteArray head = method + ' ' + target + " HTTP/1." + QByteArray::number(httpMinor) + "\r\n";
    head += "Host: " + hostText + (port == 80 ? QByteArray() : ':' + QByteArray::number(port)) + "\r\n";
    for (const auto& [name, value] : headers) {
        if (!isHopByHop(name.toLower(), namedByConnection))
            head += name + ": " + value + "\r\n";
    }
    head += "Connection: close\r\n\r\n";
    return head;
}

/// http-parser's state and callbacks; `data` points back to the reader's request being built.
struct HttpProxyRequestReader::Parser
{
    http_parser parser{};
    http_parser_settings settings{};
    HttpProxyRequestReader* reader = nullptr;
    bool lastWasValue = true; ///< a header field callback after a value starts a new header

    static Parser& of(http_parser* p) { return *static_cast<Parser*>(p->data); }
};

HttpProxyRequestReader::HttpProxyRequestReader() : m_parser(std::make_unique<Parser>())
{
    m_parser->reader = this;
    http_parser_init(&m_parser->parser, HTTP_REQUEST);
    m_parser->parser.data = m_parser.get();
    http_parser_settings_init(&m_parser->settings);
    m_parser->settings.on_url = [](http_parser* p, const char* at, size_t length) {
        Parser::of(p).reader->m_url.append(at, qsizetype(length));
        return 0;
    };
    m_parser->settings.on_header_field = [](http_parser* p, const char* at, size_t length) {
        Parser& self = Parser::of(p);
        auto& headers = self.reader->m_request.headers;
        if (self.lastWasValue)
            headers.append(std::pair<QByteArray, QByteArray>());
        headers.last().first.append(at, qsizetype(length));
        self.lastWasValue = false;
        return 0;
    };
    m_parser->settings.on_header_value = [](http_parser* p, const char* at, size_t length) {
        Parser& self = Parser::of(p);
        self.reader->m_request.headers.last().second.append(at, qsizetype(length));
        self.lastWasValue = true;
        return 0;
    };
    // Pausing makes http_parser_execute() return at the end of the head and at the end of the
    // message, so the reader knows which bytes are the body's.
    m_parser->settings.on_headers_complete = [](http_parser* p) {
        http_parser_pause(p, 1);
        return 0;
    };
    m_parser->settings.on_message_complete = [](http_parser* p) {
        http_parser_pause(p, 1);
        return 0;
    };
}

HttpProxyRequestReader::~HttpProxyRequestReader() = default;

void HttpProxyRequestReader::fail(int status, const QString& text)
{
    m_state = State::Error;
    m_errorStatus = status;
    m_errorText = text;
}

HttpProxyRequestReader::Fed HttpProxyRequestReader::feed(QByteArrayView bytes)
{
    // http-parser reads an empty buffer as the end of the connection; an empty read is not one.
    if (m_state == State::Error || m_state == State::Done || bytes.isEmpty())
        return {};
    http_parser& p = m_parser->parser;
    qsizetype offset = 0;
    if (m_state == State::Head) {
        const size_t parsed = http_parser_execute(&p, &m_parser->settings, bytes.data(), size_t(bytes.size()));
        if (HTTP_PARSER_ERRNO(&p) != HPE_PAUSED) {
            if (HTTP_PARSER_ERRNO(&p) != HPE_OK) {
                fail(400, QStringLiteral("malformed request: %1")
                              .arg(QString::fromLatin1(http_errno_description(HTTP_PARSER_ERRNO(&p)))));
            } else if ((m_headBytes += bytes.size()) > kMaxHeadBytes) {
                fail(431, QStringLiteral("the request head is longer than %1 bytes").arg(kMaxHeadBytes));
            }
            return {bytes.size(), {}};
        }
        // Paused at the end of the head: `parsed` stops just before its last byte (LF), which
        // the parser reads again when it goes on.
        if (m_headBytes + qsizetype(parsed) + 1 > kMaxHeadBytes) {
            fail(431, QStringLiteral("the request head is longer than %1 bytes").arg(kMaxHeadBytes));
            return {bytes.size(), {}};
        }
        http_parser_pause(&p, 0);
        if (!finishHead())
            return {bytes.size(), {}};
        if (m_request.isConnect()) {
            m_state = State::Done;
            return {qsizetype(parsed) + 1, {}};
        }
        m_state = State::Body;
        offset = qsizetype(parsed); // the head's LF: parsed again, not part of the body
        bytes = bytes.sliced(offset);
        const Fed body = feedBody(bytes, 1);
        return {offset + body.consumed, body.body};
    }
    return feedBody(bytes, 0);
}

HttpProxyRequestReader::Fed HttpProxyRequestReader::feedBody(QByteArrayView bytes, qsizetype skip)
{
    http_parser& p = m_parser->parser;
    const size_t parsed = http_parser_execute(&p, &m_parser->settings, bytes.data(), size_t(bytes.size()));
    if (HTTP_PARSER_ERRNO(&p) == HPE_PAUSED) { // end of the message, its last byte included
        m_state = State::Done;
        return {qsizetype(parsed), bytes.sliced(skip, qsizetype(parsed) - skip)};
    }
    if (HTTP_PARSER_ERRNO(&p) != HPE_OK) {
        fail(400, QStringLiteral("malformed request body: %1")
                      .arg(QString::fromLatin1(http_errno_description(HTTP_PARSER_ERRNO(&p)))));
        return {bytes.size(), {}};
    }
    return {bytes.size(), bytes.sliced(skip)};
}

bool HttpProxyRequestReader::finishHead()
{
    http_parser& p = m_parser->parser;
    m_request.method = http_method_str(http_method(p.method));
    m_request.httpMinor = p.http_minor;
    if (p.http_major != 1) {
        fail(505, QStringLiteral("only HTTP/1.x requests are served"));
        return false;
    }
    http_parser_url parts;
    http_parser_url_init(&parts);
    if (http_parser_parse_url(m_url.constData(), size_t(m_url.size()), m_request.isConnect(), &parts) != 0) {
        fail(400, QStringLiteral("malformed request target"));
        return false;
    }
    QByteArray host = urlField(m_url, parts, UF_HOST);
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.mid(1, host.size() - 2);
    m_request.host = QString::fromUtf8(host);
    if (m_request.isConnect()) {
        m_request.port = parts.port;
        if (host.isEmpty() || !(parts.field_set & (1 << UF_PORT)) || parts.port == 0) {
            fail(400, QStringLiteral("CONNECT needs host:port"));
            return false;
        }
        return true;
    }
    const QByteArray scheme = urlField(m_url, parts, UF_SCHEMA).toLower();
    if (scheme != "http" || host.isEmpty()) {
        fail(400, scheme == "https"
                      ? QStringLiteral("send https:// requests through CONNECT")
                      : QStringLiteral("a proxy request names an absolute http:// URI or uses CONNECT"));
        return false;
    }
    if (parts.field_set & (1 << UF_USERINFO)) {
        fail(400, QStringLiteral("user names and passwords in URIs are not forwarded"));
        return false;
    }
    m_request.port = (parts.field_set & (1 << UF_PORT)) ? parts.port : 80;
    if (m_request.port == 0) {
        fail(400, QStringLiteral("port 0 is not a port"));
        return false;
    }
    QByteArray target = urlField(m_url, parts, UF_PATH);
    if (target.isEmpty())
        target = "/";
    if (parts.field_set & (1 << UF_QUERY))
        target += '?' + urlField(m_url, parts, UF_QUERY);
    m_request.target = target;
    return true;
}

} // namespace sbw
