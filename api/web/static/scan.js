// Check-in by code. A USB scanner types the code and Enter into the
// focused field, which needs nothing here. Where the browser can read
// barcodes (BarcodeDetector), the camera reads the slip's QR code into the
// same field and sends the form.
(function () {
  const form = document.getElementById("scan");
  const button = document.getElementById("scan-camera");
  const video = document.getElementById("scan-video");
  if (!form || !button || !video || !("BarcodeDetector" in window) || !navigator.mediaDevices) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const detector = new BarcodeDetector({ formats: ["qr_code"] });
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
    video.srcObject = stream; video.hidden = false; await video.play();
    const look = async () => {
      const codes = await detector.detect(video).catch(() => []);
      if (codes.length > 0) {
        stream.getTracks().forEach((t) => t.stop());
        document.getElementById("code").value = codes[0].rawValue;
        form.submit();
        return;
      }
      requestAnimationFrame(look);
    };
    look();
  });
})();
