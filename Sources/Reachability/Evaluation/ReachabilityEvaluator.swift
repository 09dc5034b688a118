#if os(Linux)
/// Decides a target's status from the kernel's routing table: the first of the target's
/// addresses whose route goes out through a usable interface makes it reachable.
struct ReachabilityEvaluator {
    var target: ReachabilityTarget
    var classifier: InterfaceClassifier

    /// The status now.
    func status(using table: RoutingTable) throws(ReachabilityError) -> ReachabilityStatus {
        let destinations: [RouteDestination]
        switch target {
        case .system: destinations = ReachabilityTarget.systemProbes
        case .host(let host): destinations = HostAddressResolver.addresses(of: host)
        }
        for destination in destinations {
            guard case .through(let index) = try table.route(to: destination),
                let link = try table.link(index: index), link.isUsable
            else { continue }
            return .reachable(via: NetworkInterface(name: link.name, index: index, kind: classifier.kind(of: link)))
        }
        return .notReachable
    }
}
#endif
