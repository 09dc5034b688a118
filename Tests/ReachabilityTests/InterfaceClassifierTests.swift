import CNetlink
import Foundation
import TestServers
import Testing

@testable import Reachability

@Suite("Interface kinds")
struct InterfaceClassifierTests {
    /// A fake `/sys/class/net` with one folder per interface.
    private func sysfs(_ build: (String) throws -> Void) throws -> InterfaceClassifier {
        let folder = NSTemporaryDirectory() + "tsec-sysfs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try build(folder)
        return InterfaceClassifier(interfacesFolder: folder)
    }

    private func link(_ name: String, type: Int32 = Int32(ARPHRD_ETHER), flags: Int32 = Int32(IFF_UP | IFF_RUNNING)) -> LinkInfo {
        LinkInfo(index: 7, name: name, flags: UInt32(flags), hardwareType: UInt16(type), linkKind: nil)
    }

    @Test("wireless: a wireless folder, a phy80211 link or DEVTYPE=wlan")
    func wifi() throws {
        let classifier = try sysfs { root in
            try FileManager.default.createDirectory(atPath: root + "/wlan0/wireless", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/wlp2s0/phy80211", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/wifi1", withIntermediateDirectories: true)
            try "INTERFACE=wifi1\nIFINDEX=4\nDEVTYPE=wlan\n".write(toFile: root + "/wifi1/uevent", atomically: true, encoding: .utf8)
        }
        #expect(classifier.kind(of: link("wlan0")) == .wifi)
        #expect(classifier.kind(of: link("wlp2s0")) == .wifi)
        #expect(classifier.kind(of: link("wifi1")) == .wifi)
    }

    @Test("cellular: DEVTYPE=wwan, or a WWAN driver; raw-IP links without either are other")
    func cellular() throws {
        let classifier = try sysfs { root in
            try FileManager.default.createDirectory(atPath: root + "/wwan0", withIntermediateDirectories: true)
            try "DEVTYPE=wwan\n".write(toFile: root + "/wwan0/uevent", atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: root + "/usb0/device", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/drivers/qmi_wwan", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/usb0/device/driver", withDestinationPath: root + "/drivers/qmi_wwan")
            try FileManager.default.createDirectory(atPath: root + "/usb1/device", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/drivers/cdc_ether", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/usb1/device/driver", withDestinationPath: root + "/drivers/cdc_ether")
        }
        #expect(classifier.kind(of: link("wwan0", type: 519)) == .cellular)
        #expect(classifier.kind(of: link("usb0")) == .cellular)
        #expect(classifier.kind(of: link("usb1")) == .ethernet)
        #expect(classifier.kind(of: link("rmnet_data0", type: 519)) == .other)
    }

    @Test("loopback by flag or type, Ethernet by hardware type, everything else other; no sysfs in another namespace")
    func byKernelAnswer() throws {
        let namespaced = InterfaceClassifier(interfacesFolder: nil)
        #expect(namespaced.kind(of: link("lo", type: Int32(ARPHRD_LOOPBACK), flags: Int32(IFF_UP | IFF_LOOPBACK))) == .loopback)
        #expect(namespaced.kind(of: link("lo0", flags: Int32(IFF_LOOPBACK))) == .loopback)
        #expect(namespaced.kind(of: link("eth0")) == .ethernet)
        #expect(namespaced.kind(of: link("wg0", type: Int32(ARPHRD_NONE))) == .other)
        #expect(namespaced.kind(of: link("ppp0", type: Int32(ARPHRD_PPP))) == .other)
        // A wireless interface seen from another namespace has no sysfs to say so.
        #expect(namespaced.kind(of: link("wlan0")) == .ethernet)
    }

    @Test("usable means up and running")
    func usable() {
        #expect(link("a").isUsable)
        #expect(!link("b", flags: Int32(IFF_UP)).isUsable)
        #expect(!link("c", flags: Int32(IFF_RUNNING)).isUsable)
    }
}

@Suite("Reachability statuses and netlink messages")
struct ReachabilityStatusTests {
    @Test("descriptions, and the Wi-Fi and WWAN conveniences")
    func descriptions() {
        let expected: [(ReachabilityStatus, String, String)] = [
            (.unknown, "Unknown", "unknown"),
            (.notReachable, "Not Reachable", "notReachable"),
            (.reachable(via: NetworkInterface(name: "wlan0", index: 3, kind: .wifi)), "Reachable via WiFi", "reachable via wifi (wlan0)"),
            (.reachable(via: NetworkInterface(name: "wwan0", index: 4, kind: .cellular)), "Reachable via WWAN", "reachable via cellular (wwan0)"),
            (.reachable(via: NetworkInterface(name: "eth0", index: 2, kind: .ethernet)), "Reachable via Ethernet", "reachable via ethernet (eth0)"),
            (.reachable(via: NetworkInterface(name: "lo", index: 1, kind: .loopback)), "Reachable via Loopback", "reachable via loopback (lo)"),
            (.reachable(via: NetworkInterface(name: "wg0", index: 5, kind: .other)), "Reachable via Other Interface", "reachable via other (wg0)"),
        ]
        for (status, english, description) in expected {
            #expect(status.localizedDescription == english)
            #expect(status.description == description)
        }
        #expect(expected[2].0.isReachableViaWiFi && !expected[2].0.isReachableViaWWAN)
        #expect(expected[3].0.isReachableViaWWAN && !expected[3].0.isReachableViaWiFi)
        #expect(!ReachabilityStatus.unknown.isReachable && !ReachabilityStatus.notReachable.isReachable)
    }

    @Test("a datagram whose length fields run past its end is refused, not read")
    func malformedDatagram() {
        var header: [UInt8] = []
        withUnsafeBytes(of: UInt32(64)) { header += $0 }  // claims 64 bytes
        header += [UInt8](repeating: 0, count: 12)
        #expect(NetlinkMessage.split(header[...]) == nil)
        withUnsafeBytes(of: UInt32(8)) { header.replaceSubrange(0..<4, with: $0) }  // shorter than a header
        #expect(NetlinkMessage.split(header[...]) == nil)
        #expect(NetlinkMessage.split([UInt8]()[...])?.isEmpty == true)
    }

    @Test("attributes: nested flags masked, a truncated attribute ends the list")
    func attributes() {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt16(8)) { bytes += $0 }
        withUnsafeBytes(of: UInt16(4 | 0x8000)) { bytes += $0 }  // RTA_OIF with NLA_F_NESTED set
        withUnsafeBytes(of: UInt32(9)) { bytes += $0 }
        withUnsafeBytes(of: UInt16(40)) { bytes += $0 }  // runs past the end
        withUnsafeBytes(of: UInt16(3)) { bytes += $0 }
        let attributes = NetlinkAttributes(bytes[...])
        #expect(attributes.uint32(4) == 9)
        #expect(attributes[3] == nil)
    }

    @Test("IP literals, bracketed and zoned IPv6 included; names are not literals")
    func literals() {
        #expect(RouteDestination(literal: "192.0.2.7")?.bytes == [192, 0, 2, 7])
        #expect(RouteDestination(literal: "[2001:db8::1]")?.description == "2001:db8::1")
        #expect(RouteDestination(literal: "fe80::1%eth0")?.bytes.count == 16)
        #expect(RouteDestination(literal: "example.com") == nil)
        #expect(HostAddressResolver.addresses(of: "localhost").contains { $0.description == "127.0.0.1" || $0.description == "::1" })
    }
}
