#include "log/SecretMasker.h"

#include <algorithm>

namespace sbw {

SecretMasker::SecretMasker(QList<QByteArray> secrets)
{
    secrets.removeIf([](const QByteArray& secret) { return secret.isEmpty(); });
    std::sort(secrets.begin(), secrets.end(),
              [](const QByteArray& a, const QByteArray& b) { return a.size() > b.size(); });
    m_secrets = std::move(secrets);
}

QByteArray SecretMasker::feed(QByteArrayView chunk)
{
    m_pending.append(chunk);
    return mask(false);
}

QByteArray SecretMasker::finish()
{
    return mask(true);
}

QByteArray SecretMasker::maskAll(QByteArrayView text, const QList<QByteArray>& secrets)
{
    SecretMasker masker(secrets);
    // Two statements: the operands of + may be evaluated in either order, and finish() first
    // would drop what feed() holds back (a tail that could start a secret).
    QByteArray masked = masker.feed(text);
    return masked + masker.finish();
}

QByteArray SecretMasker::mask(bool final)
{
    if (m_secrets.isEmpty())
        return std::exchange(m_pending, {});
    QByteArray shown;
    shown.reserve(m_pending.size());
    const QByteArrayView text(m_pending);
    qsizetype i = 0;
    while (i < text.size()) {
        const QByteArrayView rest = text.sliced(i);
        const auto whole = std::find_if(m_secrets.cbegin(), m_secrets.cend(),
                                        [&](const QByteArray& secret) { return rest.startsWith(secret); });
        if (whole != m_secrets.cend()) {
            shown.append(kMask);
            i += whole->size();
            continue;
        }
        // A secret may start here and go on in the next chunk: wait for it.
        const bool maybe = !final && std::any_of(m_secrets.cbegin(), m_secrets.cend(), [&](const QByteArray& secret) {
            return secret.size() > rest.size() && QByteArrayView(secret).startsWith(rest);
        });
        if (maybe)
            break;
        shown.append(text[i]);
        ++i;
    }
    m_pending.remove(0, i);
    return shown;
}

} // namespace sbw
