extension String {
    /// The host (or address) as a URL's authority writes it before `:port`: an IPv6 literal, the
    /// only host with a colon, in brackets (`[::1]`); any other as it is.
    package var inAuthorityForm: String { contains(":") ? "[\(self)]" : self }
}
