// Verifies HSS/LMS signatures with BouncyCastle's own implementation (the low-level
// org.bouncycastle.pqc.crypto.lms API), from the raw RFC 8554 public key and signature that
// docs/firmware.md "Verify elsewhere" extracts: test/recipes/bouncycastle.t compiles and runs it.
//
//   java -cp /usr/share/java/bcprov.jar:. HssVerify PUBLIC-KEY.raw MESSAGE SIGNATURE.raw [...]
//
// One or more triples (one JVM start for all of them). For each it prints "SIGNATURE: VERIFIED",
// "SIGNATURE: REJECTED" or "SIGNATURE: ERROR <exception>: <message>" (BouncyCastle cannot read the key
// or signature, e.g. a parameter set it does not know). Exit 0 when all verified, 2 when any was an
// error, else 1.
import java.nio.file.Files;
import java.nio.file.Paths;

import org.bouncycastle.pqc.crypto.lms.HSSPublicKeyParameters;
import org.bouncycastle.pqc.crypto.lms.HSSSigner;

public final class HssVerify {
    private HssVerify() {}

    static boolean verify(String publicKeyFile, String messageFile, String signatureFile) throws Exception {
        byte[] publicKey = Files.readAllBytes(Paths.get(publicKeyFile));
        byte[] message = Files.readAllBytes(Paths.get(messageFile));
        byte[] signature = Files.readAllBytes(Paths.get(signatureFile));
        HSSSigner verifier = new HSSSigner();
        verifier.init(false, HSSPublicKeyParameters.getInstance(publicKey));
        return verifier.verifySignature(message, signature);
    }

    public static void main(String[] args) {
        if (args.length == 0 || args.length % 3 != 0) {
            System.err.println("usage: HssVerify PUBLIC-KEY.raw MESSAGE SIGNATURE.raw [...]");
            System.exit(2);
        }
        int status = 0;
        for (int i = 0; i < args.length; i += 3) {
            String result;
            try {
                boolean valid = verify(args[i], args[i + 1], args[i + 2]);
                result = valid ? "VERIFIED" : "REJECTED";
                if (!valid) status = Math.max(status, 1);
            } catch (Exception | Error e) {  // BouncyCastle throws unchecked exceptions on unknown types
                result = "ERROR " + e.getClass().getName() + ": " + e.getMessage();
                status = 2;
            }
            System.out.println(args[i + 2] + ": " + result);
        }
        System.exit(status);
    }
}
