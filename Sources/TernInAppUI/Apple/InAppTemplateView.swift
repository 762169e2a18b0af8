#if os(iOS)
    import SwiftUI
    import TernInApp

    /// A template campaign drawn natively: image, title, body, and the buttons the app can act on.
    struct InAppTemplateView: View {
        let template: InAppTemplate
        let buttons: [InAppButton]
        let image: UIImage?
        let tap: (InAppButton) -> Void
        let close: () -> Void

        var body: some View {
            ZStack {
                Color.black.opacity(0.4).ignoresSafeArea().onTapGesture(perform: close)
                VStack(spacing: 16) {
                    HStack {
                        Spacer()
                        Button(action: close) {
                            Image(systemName: "xmark").font(.body.weight(.semibold)).padding(8)
                        }
                        .accessibilityLabel(Text("Close"))
                    }
                    if let image {
                        Image(uiImage: image).resizable().scaledToFit().frame(maxHeight: 220)
                            .clipShape(RoundedRectangle(cornerRadius: 12))
                    }
                    Text(template.title).font(.title2.weight(.bold)).multilineTextAlignment(.center)
                    if let body = template.body {
                        Text(body).font(.body).multilineTextAlignment(.center).foregroundStyle(.secondary)
                    }
                    ForEach(buttons, id: \.id) { button in
                        Button(action: { tap(button) }) {
                            Text(button.text).frame(maxWidth: .infinity).padding(.vertical, 12)
                        }
                        .buttonStyle(.borderedProminent)
                    }
                }
                .padding(20)
                .background(RoundedRectangle(cornerRadius: 20).fill(Color(uiColor: .systemBackground)))
                .padding(24)
            }
        }
    }
#endif
