// Verifies an HSS/LMS signature with BouncyCastle's own implementation (the low-level
// org.bouncycastle.pqc.crypto.lms API), from the raw RFC 8554 public key and signature that
// docs/firmware.md "Verify elsewhere" extracts: test/recipes/bouncycastle.t compiles and runs it.
//
//   java -cp bcprov.jar:. HssVerify PUBLIC-KEY.raw MESSAGE SIGNATURE.raw
//
// Exit 0 and "VERIFIED" when the signature is valid, 1 and "REJECTED" when it is not, 2 and
// "ERROR <exception>: <message>" when BouncyCastle cannot read the key or signature (for example a
// parameter set it does not know).
import java.nio.file.Files;
import java.nio.file.Paths;

import org.bouncycastle.pqc.crypto.lms.HSSPublicKeyParameters;
import org.bouncycastle.pqc.crypto.lms.HSSSigner;

public final class HssVerify {
    private HssVerify() {}

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: HssVerify PUBLIC-KEY.raw MESSAGE SIGNATURE.raw");
            System.exit(2);
        }
        try {
            byte[] publicKey = Files.readAllBytes(Paths.get(args[0]));
            byte[] message = Files.readAllBytes(Paths.get(args[1]));
            byte[] signature = Files.readAllBytes(Paths.get(args[2]));
            HSSSigner verifier = new HSSSigner();
            verifier.init(false, HSSPublicKeyParameters.getInstance(publicKey));
            boolean valid = verifier.verifySignature(message, signature);
            System.out.println(valid ? "VERIFIED" : "REJECTED");
            System.exit(valid ? 0 : 1);
        } catch (Exception | Error e) {  // BouncyCastle throws unchecked exceptions on unknown types
            System.out.println("ERROR " + e.getClass().getName() + ": " + e.getMessage());
            System.exit(2);
        }
    }
}
