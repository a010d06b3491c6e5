// VultureGoldenResources — this folder as a SwiftPM resource target: VERSION, schema/, vectors/ and scenarios/
// are copied into the target's resource bundle, so VultureConformance finds the goldens wherever the
// bundle is (a test bundle on a device, a package that depends on this one). The only Swift file in
// Goldens/ (Goldens/README.md); the JSON files beside it are written by `vulture-goldens write`.
import Foundation

/// Where the bundled copy of Goldens/ is.
package enum GoldenResources {
    /// The folder holding `VERSION`, `schema/`, `vectors/` and `scenarios/` inside the resource bundle.
    package static var root: URL { Bundle.module.resourceURL ?? Bundle.module.bundleURL }
}
