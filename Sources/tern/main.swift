import Foundation
FileHandle.standardError.write(Data("tern: not built yet\n".utf8))
exit(2)
