public enum C {}
