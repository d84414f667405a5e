#include "sandbox/SandboxPool.h"

#include "base/DataPaths.h"
#include "base/Logging.h"
#include "guest/GuestSession.h"

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
    m_ready.reset();
}

void SandboxPool::joinBoot()
{
    // Called with m_mutex held and m_booting false: the boot thread is past its last lock.
    if (m_boot.joinable())
        m_boot.join();
}

std::unique_ptr<Sandbox> SandboxPool::take(const SandboxOptions& options)
{
    std::unique_ptr<Sandbox> sandbox;
    {
        std::lock_guard lock(m_mutex);
        if (!m_enabled || !m_ready || !sameSandbox(m_ready->options(), options))
            return nullptr;
        sandbox = std::move(m_ready);
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
    std::unique_ptr<Sandbox> stale;
    {
        std::lock_guard lock(m_mutex);
        if (!m_enabled || m_booting || m_stop || (m_ready && sameSandbox(m_ready->options(), options)))
            return;
        stale = std::move(m_ready);
        joinBoot();
        m_booting = true;
        m_boot = std::thread([this, options] {
            auto started = m_make(options, &m_stop);
            Expected<void> ready = !started                        ? Expected<void>(started.error())
                                   : started.value()->sharedSession() ? Expected<void>()
                                                                      : started.value()->waitReady(&m_stop);
            if (ready) {
                // The first Python start in a fresh guest reads the interpreter from the disk
                // and translates its code (TCG): 0.8-1.1 s against 0.3-0.5 s warm. Done here,
                // it is not the run's.
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
            } else {
                std::lock_guard lock(m_mutex);
                if (m_enabled) {
                    qCInfo(lcRun) << "pre-booted sandbox" << started.value()->domainName() << "is ready";
                    m_ready = std::move(started.value());
                }
            }
            m_booting = false; // a sandbox turned away by setEnabled(false) is destroyed below
        });
    }
}

void SandboxPool::setEnabled(bool enabled)
{
    std::unique_ptr<Sandbox> dropped;
    std::lock_guard lock(m_mutex);
    m_enabled = enabled;
    if (!enabled)
        dropped = std::move(m_ready);
}

bool SandboxPool::hasReady() const
{
    std::lock_guard lock(m_mutex);
    return m_ready != nullptr;
}

} // namespace sbw
