import Foundation

#if os(iOS)
    import UIKit
#endif

/// The view of an in-app message, for the app's own animation (``InApp/animation(_:)``): handed
/// to it once the message's content is loaded.
///
/// ```swift
/// Tern.shared.inApp.animation { animator in
///     animator.prepare { $0.alpha = 0 }
///     animator.animate(duration: 0.3, delay: 0, options: .curveEaseInOut,
///                      animations: { $0.alpha = 1 }, completion: nil)
/// }
/// ```
public protocol InAppAnimator {
    /// The campaign's id as a number (0 when it is not one).
    var companyId: Int { get }
    /// The campaign's id as the server gives it.
    var campaignId: String { get }

    #if os(iOS)
        /// Applies changes to the view without animation.
        @MainActor func prepare(_ block: (UIView) -> Void)

        /// Runs a UIKit animation on the view.
        @MainActor func animate(
            duration: TimeInterval, delay: TimeInterval, options: UIView.AnimationOptions,
            animations: @escaping (UIView) -> Void, completion: ((Bool) -> Void)?)
    #endif
}
