#include "node.h"

#include "proxy_node.h"
#include "target_node.h"

namespace tessera::daemon {

std::unique_ptr<Node> Node::create(const Config& config)
{
    if (config.role == "proxy") return std::make_unique<ProxyNode>(config);
    return std::make_unique<TargetNode>(config);
}

}  // namespace tessera::daemon
