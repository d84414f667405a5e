#include "sandbox/SandboxPool.h"

#include "base/Async.h"
#include "base/DataPaths.h"
#include "base/Logging.h"
#include "guest/GuestSession.h"

#include <algorithm>

namespace sbw {

bool sameSandbox(const SandboxOptions& a, const SandboxOptions& b)
{
    return a.recipe == b.recipe && a.memoryMiB == b.memoryMiB && a.vcpus == b.vcpus
           && a.cpuSharePercent == b.cpuSharePercent && a.diskGiB == b.diskGiB;
}

SandboxPool::SandboxPool(HypervisorConnection& connection, Maker make)
    : m_connection(connection), m_make(std::move(make))
{
    if (!m_make)
        m_make = [this](const SandboxOptions& options, const std::atomic_bool*) {
            return Sandbox::start(m_connection, options);
        };
}

SandboxPool::~SandboxPool()
{
    m_stop = true;
    if (m_boot.joinable())
        m_boot.join();
    m_ready.clear();
}

void SandboxPool::joinBoot()
{
    // Called with m_mutex held and m_booting false: the pool thread is past its last lock.
    if (m_boot.joinable())
        m_boot.join();
}

std::unique_ptr<Sandbox> SandboxPool::take(const SandboxOptions& options)
{
    std::unique_ptr<Sandbox> sandbox;
    {
        std::lock_guard lock(m_mutex);
        const auto found = std::find_if(m_ready.begin(), m_ready.end(),
                                        [&](const auto& ready) { return sameSandbox(ready->options(), options); });
        if (found == m_ready.end())
            return nullptr;
        sandbox = std::move(*found);
        m_ready.erase(found);
    }
    const auto image = GuestImage::load(paths::imagesDir(), options.recipe);
    if (!image || image->hash != sandbox->image().hash) {
        qCInfo(lcRun) << "pre-booted sandbox" << sandbox->domainName() << "has an older image of"
                      << options.recipe << "; starting a new one";
        return nullptr; // destroyed here
    }
    if (auto resumed = sandbox->resume(); !resumed) {
        qCWarning(lcRun) << resumed.error().message;
        return nullptr;
    }
    qCInfo(lcRun) << "took pre-booted sandbox" << sandbox->domainName();
    return sandbox;
}

void SandboxPool::refill(const SandboxOptions& options)
{
    std::vector<std::unique_ptr<Sandbox>> stale; // destroyed after the lock is released
    std::lock_guard lock(m_mutex);
    if (m_size == 0 || m_stop)
        return;
    // Sandboxes of other options serve none of the next runs.
    for (auto& ready : m_ready)
        if (!sameSandbox(ready->options(), options))
            stale.push_back(std::move(ready));
    std::erase(m_ready, nullptr);
    m_wanted = options;
    startFilling();
}

void SandboxPool::startFilling()
{
    if (m_booting || m_stop || !m_wanted || int(m_ready.size()) >= m_size)
        return;
    joinBoot();
    m_booting = true;
    m_boot = std::thread([this] { fill(); });
}

void SandboxPool::fill()
{
    for (;;) {
        SandboxOptions options;
        {
            std::lock_guard lock(m_mutex);
            if (m_stop || int(m_ready.size()) >= m_size) {
                m_booting = false;
                return;
            }
            options = *m_wanted;
        }
        std::unique_ptr<Sandbox> made = makeReady(options);
        std::lock_guard lock(m_mutex);
        // A sandbox no longer wanted (the pool shrank or the options changed while it was
        // made) is destroyed when the thread leaves; one that could not be made stops the
        // filling until the next refill().
        const bool wanted = made && int(m_ready.size()) < m_size && sameSandbox(options, *m_wanted);
        if (wanted) {
            qCInfo(lcRun) << "pre-booted sandbox" << made->domainName() << "is ready";
            m_ready.push_back(std::move(made));
        }
        if (!wanted) {
            m_booting = false;
            return;
        }
    }
}

std::unique_ptr<Sandbox> SandboxPool::makeReady(const SandboxOptions& options)
{
    auto started = m_make(options, &m_stop);
    Expected<void> ready = !started                           ? Expected<void>(started.error())
                           : started.value()->sharedSession() ? Expected<void>()
                                                              : started.value()->waitReady(&m_stop);
    if (ready) {
        // The first Python start in a fresh guest reads the interpreter from the disk and
        // translates its code (TCG): 0.8-1.1 s against 0.3-0.5 s warm. Done here, it is not
        // the run's.
        ExecRequest warmUp;
        warmUp.command = "exec python3 -c pass";
        warmUp.timeout = std::chrono::seconds(60);
        warmUp.cancel = &m_stop;
        if (auto warmed = started.value()->session().exec(warmUp); !warmed)
            qCInfo(lcRun) << "pre-boot warm-up:" << warmed.error().message;
        ready = started.value()->suspend();
    }
    if (!ready) {
        if (!m_stop)
            qCWarning(lcRun) << "cannot pre-boot a sandbox:" << ready.error().message;
        return nullptr;
    }
    return std::move(started.value());
}

void SandboxPool::setSize(int size)
{
    std::vector<std::unique_ptr<Sandbox>> surplus; // destroyed after the lock is released
    std::lock_guard lock(m_mutex);
    m_size = std::clamp(size, 0, kMaxSize);
    while (int(m_ready.size()) > m_size) {
        surplus.push_back(std::move(m_ready.back()));
        m_ready.pop_back();
    }
    startFilling();
}

void SandboxPool::dropLost()
{
    auto lost = std::make_shared<std::vector<std::unique_ptr<Sandbox>>>();
    {
        std::lock_guard lock(m_mutex);
        lost->swap(m_ready);
        m_wanted.reset(); // nothing is made on a dead connection; the next refill() says what
    }
    if (!lost->empty())
        runAsync([lost] { lost->clear(); });
}

bool SandboxPool::hasReady() const
{
    return readyCount() > 0;
}

int SandboxPool::readyCount() const
{
    std::lock_guard lock(m_mutex);
    return int(m_ready.size());
}

} // namespace sbw
