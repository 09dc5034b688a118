/// A hostile hierarchy for path-building tests: layers of CAs that share a name per layer and
/// cross-sign each other, so the number of candidate paths grows exponentially with depth.
public struct CrossSignedMesh: Sendable {
    /// The server certificate at the bottom of the mesh.
    public let leaf: IssuedCertificate
    /// Every CA certificate of the mesh, the layer nearest the leaf first.
    public let intermediates: [IssuedCertificate]

    /// What a server would present: the leaf, then every mesh certificate.
    public var chain: [IssuedCertificate] { [leaf] + intermediates }
}

extension PKI {
    /// Builds a ``CrossSignedMesh`` under `root`.
    /// - Parameters:
    ///   - root: The CA at the top; every path through the mesh ends at it.
    ///   - host: The name of the leaf.
    ///   - layers: How many layers of CAs.
    ///   - keysPerLayer: How many distinct CA keys each layer has.
    ///   - parentsPerKey: How many CAs of the layer above certify each key (the fan-out).
    public func crossSignedMesh(
        under root: IssuedCertificate,
        host: String,
        layers: Int = 6,
        keysPerLayer: Int = 4,
        parentsPerKey: Int = 2
    ) throws -> CrossSignedMesh {
        var previous = [root]
        var built: [[IssuedCertificate]] = []
        for level in 0..<layers {
            var layer: [IssuedCertificate] = []
            for _ in 0..<keysPerLayer {
                let key = try KeyPair(generating: .p256)
                for parent in previous.prefix(parentsPerKey) {
                    layer.append(try issue(.certificateAuthority("Mesh CA \(level)"), by: parent, key: key))
                }
            }
            built.append(layer)
            previous = layer
        }
        let leaf = try issue(.server(host), by: previous[0])
        return CrossSignedMesh(leaf: leaf, intermediates: built.reversed().flatMap { $0 })
    }
}
