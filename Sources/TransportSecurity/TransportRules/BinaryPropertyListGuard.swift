import Foundation

/// Checks the object graph of a binary property list before Foundation reads it.
///
/// Foundation on Linux crashes on two kinds of hostile binary plists (both found by
/// `Fuzz/run.sh FuzzConfiguration`): `PropertyListDecoder` recurses forever on an object that
/// contains itself, and `PropertyListSerialization` crashes bridging a set whose elements are
/// containers; and both expand shared references without a bound, so that a few hundred bytes
/// whose containers refer to one another twice over, level after level, keep them busy forever.
/// Neither configurations nor the property-list bodies of the session hold sets (XML property
/// lists cannot even express them), so a binary plist with a set, a reference cycle, an offset or
/// reference outside the file, more than ``maximumNesting`` levels, or shared references standing
/// for exponentially many values is refused here with the reason, and only a sound one is handed
/// to Foundation.
package enum BinaryPropertyListGuard {
    /// Why a binary plist is refused.
    package struct Refusal: Error {
        /// The reason, as a phrase (`a binary property list containing a set, …`).
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Throws the reason the binary plist `data` is refused; returns for anything that is not a
    /// binary plist (Foundation reports those itself).
    package static func check(_ data: Data) throws(Refusal) {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, bytes.starts(with: Array("bplist0".utf8)) else { return }
        guard bytes.count >= 8 + 32 else { throw Refusal("a binary property list shorter than its trailer") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = integer(bytes, at: trailer + 8, size: 8)
        let topObject = integer(bytes, at: trailer + 16, size: 8)
        let offsetTable = integer(bytes, at: trailer + 24, size: 8)
        guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize),
            objectCount > 0, objectCount <= UInt64(trailer), topObject < objectCount,
            offsetTable >= 8, offsetTable <= UInt64(trailer),
            UInt64(trailer) - offsetTable >= objectCount * UInt64(offsetSize)
        else { throw Refusal("a binary property list whose trailer points outside the file") }
        let count = Int(objectCount)
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for index in 0..<count {
            let offset = integer(bytes, at: Int(offsetTable) + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < offsetTable else { throw Refusal("a binary property list with an object outside its object area") }
            offsets.append(Int(offset))
        }

        // The references each object holds (arrays, dictionaries); sets are refused.
        func references(of object: Int) throws(Refusal) -> [Int] {
            let start = offsets[object]
            let marker = bytes[start]
            let kind = marker >> 4
            guard kind == 0xA || kind == 0xD else {
                if kind == 0xC { throw Refusal("a binary property list containing a set, which Foundation cannot read safely") }
                return []
            }
            var length = Int(marker & 0x0F)
            var cursor = start + 1
            if length == 0x0F {
                guard cursor < Int(offsetTable), bytes[cursor] >> 4 == 0x1 else { throw Refusal("a binary property list with a malformed length") }
                let size = 1 << Int(bytes[cursor] & 0x0F)
                guard size <= 8, cursor + 1 + size <= Int(offsetTable) else { throw Refusal("a binary property list with a malformed length") }
                let value = integer(bytes, at: cursor + 1, size: size)
                // Each entry takes at least a byte of the object area; a container may refer to a
                // shared value any number of times (a thousand `true`s are one object).
                guard value <= offsetTable else { throw Refusal("a binary property list with a container longer than its object area") }
                length = Int(value)
                cursor += 1 + size
            }
            let referenceCount = kind == 0xD ? length * 2 : length
            guard cursor + referenceCount * referenceSize <= Int(offsetTable) else {
                throw Refusal("a binary property list whose container runs past its object area")
            }
            var found: [Int] = []
            found.reserveCapacity(referenceCount)
            for index in 0..<referenceCount {
                let reference = integer(bytes, at: cursor + index * referenceSize, size: referenceSize)
                guard reference < objectCount else { throw Refusal("a binary property list with a reference to a missing object") }
                found.append(Int(reference))
            }
            return found
        }

        // Depth-first from the top object, without recursion: reaching an object that is still
        // open is a cycle. Objects shared by several containers are fine, but each is read once
        // per reference: an object's `expanded` count is the values it stands for once every
        // reference is followed, and its `height` the nesting below it, both known when it is
        // done (its children are done before it).
        enum Mark { case unvisited, open, done }
        var marks = [Mark](repeating: .unvisited, count: count)
        var expanded = [Int](repeating: 1, count: count)
        var height = [Int](repeating: 1, count: count)
        var referenceCount = 0
        var stack: [(object: Int, children: [Int], next: Int)] = [(Int(topObject), try references(of: Int(topObject)), 0)]
        marks[Int(topObject)] = .open
        while let top = stack.last {
            if top.next == top.children.count {
                marks[top.object] = .done
                referenceCount += top.children.count
                for child in top.children {
                    expanded[top.object] = min(expanded[top.object] &+ expanded[child], Int.max / 2)
                    height[top.object] = max(height[top.object], height[child] + 1)
                }
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let child = top.children[top.next]
            switch marks[child] {
            case .open: throw Refusal("a binary property list in which an object contains itself")
            case .done: continue
            case .unvisited:
                marks[child] = .open
                stack.append((child, try references(of: child), 0))
            }
        }
        let top = Int(topObject)
        guard height[top] <= maximumNesting else {
            throw Refusal("a binary property list nested \(height[top]) deep, more than the \(maximumNesting) levels Foundation reads")
        }
        // A writer shares values (equal strings, numbers) between containers, so that following
        // every reference gives about one value per reference. Containers referring to one
        // another twice over, level after level, stand for exponentially many: 120 bytes for a
        // million values, which Foundation spends seconds expanding (forty levels: forever).
        let expansionLimit = 4 * (referenceCount + count) + 10_000
        guard expanded[top] <= expansionLimit else {
            throw Refusal("a binary property list whose \(count) objects stand for more than \(expansionLimit) values once their shared references are followed")
        }
    }

    /// The deepest nesting a binary property list may have: Foundation's own limit for XML and
    /// JSON (`PropertyListDecoder` recurses once per level, without a bound of its own).
    package static let maximumNesting = 512

    /// A big-endian unsigned integer of `size` bytes.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
