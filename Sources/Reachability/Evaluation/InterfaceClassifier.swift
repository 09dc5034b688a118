#if os(Linux)
import CNetlink
import Foundation

/// Tells what kind of link an interface is, from what the kernel says about it and, when the
/// monitor runs in the process's own network namespace, from sysfs (`/sys/class/net/IF`).
struct InterfaceClassifier: Sendable {
    /// The sysfs folder of network interfaces, or `nil` when sysfs shows another namespace's
    /// interfaces than the one monitored (a monitor inside a named namespace).
    var interfacesFolder: String?

    /// Drivers of cellular modems whose interfaces may not say `DEVTYPE=wwan`.
    static let cellularDrivers: Set<String> = [
        "qmi_wwan", "cdc_mbim", "sierra_net", "huawei_cdc_ncm", "mhi_net", "rmnet", "ipa", "option",
    ]

    /// The interface's kind.
    func kind(of link: LinkInfo) -> InterfaceKind {
        if link.isLoopback { return .loopback }
        if let folder = interfacesFolder.map({ $0 + "/" + link.name }) {
            let fileManager = FileManager.default
            if fileManager.fileExists(atPath: folder + "/wireless") || fileManager.fileExists(atPath: folder + "/phy80211") {
                return .wifi
            }
            switch deviceType(in: folder) {
            case "wlan": return .wifi
            case "wwan": return .cellular
            default: break
            }
            if let driver = try? fileManager.destinationOfSymbolicLink(atPath: folder + "/device/driver"),
                Self.cellularDrivers.contains((driver as NSString).lastPathComponent)
            {
                return .cellular
            }
        }
        return link.hardwareType == UInt16(ARPHRD_ETHER) ? .ethernet : .other
    }

    /// `DEVTYPE` from the interface's `uevent` file.
    private func deviceType(in folder: String) -> String? {
        guard let uevent = try? String(contentsOfFile: folder + "/uevent", encoding: .utf8) else { return nil }
        return uevent.split(separator: "\n").first { $0.hasPrefix("DEVTYPE=") }.map { String($0.dropFirst("DEVTYPE=".count)) }
    }
}
#endif
