import Foundation

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

    // The view and option types are UIKit's, named in `Apple/InAppAnimator+UIKit.swift`.
    #if os(iOS)
        /// Applies changes to the view without animation.
        @MainActor func prepare(_ block: (InAppAnimatedView) -> Void)

        /// Runs a UIKit animation on the view.
        @MainActor func animate(
            duration: TimeInterval, delay: TimeInterval, options: InAppAnimationOptions,
            animations: @escaping (InAppAnimatedView) -> Void, completion: ((Bool) -> Void)?)
    #endif
}
