#if os(iOS)
    import UIKit

    /// The view an ``InAppAnimator`` changes and animates: the in-app message's UIKit view.
    public typealias InAppAnimatedView = UIView

    /// The options of an ``InAppAnimator``'s animation: UIKit's view animation options
    /// (`.curveEaseInOut`, `.beginFromCurrentState`, …).
    public typealias InAppAnimationOptions = UIView.AnimationOptions
#endif
